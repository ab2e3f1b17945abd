import { err, ok, type Result } from '../../domain/result';
import type { ReadinessCheck } from '../ports/readiness-check';

export type DependencyState = 'up' | 'down';

export interface CheckReadinessOutput {
  /** Every configured dependency and its state; empty when nothing needs checking. */
  readonly checks: Readonly<Record<string, DependencyState>>;
}

export type CheckReadinessError = {
  readonly code: 'not_ready';
  readonly checks: Readonly<Record<string, DependencyState>>;
  /** Names of the dependencies that did not answer in time, in configuration order. */
  readonly down: readonly string[];
};

/** Is this gateway ready for traffic? Asks every configured dependency at once, each with a short timeout. */
export class CheckReadinessUseCase {
  constructor(
    private readonly dependencies: readonly ReadinessCheck[],
    private readonly timeoutMs: number,
  ) {}

  async execute(): Promise<Result<CheckReadinessOutput, CheckReadinessError>> {
    const states = await Promise.all(this.dependencies.map((d) => this.probe(d)));
    const checks: Record<string, DependencyState> = {};
    const down: string[] = [];
    this.dependencies.forEach((d, i) => {
      checks[d.name] = states[i];
      if (states[i] === 'down') down.push(d.name);
    });
    return down.length === 0 ? ok({ checks }) : err({ code: 'not_ready', checks, down });
  }

  private async probe(dependency: ReadinessCheck): Promise<DependencyState> {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<DependencyState>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve('down');
      }, this.timeoutMs);
    });
    const answer = dependency.check(controller.signal).then(
      (): DependencyState => 'up',
      (): DependencyState => 'down',
    );
    try {
      return await Promise.race([answer, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
