import { err, ok, type Result } from '../../domain/result';
import type { ReadinessCheck } from './readiness-check';

export type DependencyState = 'up' | 'down';

/**
 * `forward_auth`: can this replica answer forward auth (what a load balancer asks)? Only the checks
 * that gate forward auth decide; a shared store that is down is reported as degraded.
 * `every_dependency`: does every configured dependency answer (what monitoring asks)?
 */
export type ReadinessScope = 'forward_auth' | 'every_dependency';

export interface CheckReadinessInput {
  readonly scope: ReadinessScope;
}

export interface CheckReadinessOutput {
  /** Every configured dependency and its state; empty when nothing needs checking. */
  readonly checks: Readonly<Record<string, DependencyState>>;
  /** Scope `forward_auth`: the dependencies that are down without gating forward auth; absent when none. */
  readonly degraded?: readonly string[];
}

export type CheckReadinessError = {
  readonly code: 'not_ready';
  readonly checks: Readonly<Record<string, DependencyState>>;
  /** Names of the dependencies that did not answer in time, in configuration order. */
  readonly down: readonly string[];
};

/**
 * Is this gateway ready for traffic (scope `forward_auth`), or is every dependency up (scope
 * `every_dependency`)? Asks every configured dependency at once, each with a short timeout.
 */
export class CheckReadinessUseCase {
  constructor(
    private readonly dependencies: readonly ReadinessCheck[],
    private readonly timeoutMs: number,
  ) {}

  async execute(input: CheckReadinessInput): Promise<Result<CheckReadinessOutput, CheckReadinessError>> {
    const states = await Promise.all(this.dependencies.map((d) => this.probe(d)));
    const checks: Record<string, DependencyState> = {};
    const down: string[] = [];
    let blocking = false;
    this.dependencies.forEach((d, i) => {
      checks[d.name] = states[i];
      if (states[i] !== 'down') return;
      down.push(d.name);
      if (input.scope === 'every_dependency' || d.gatesForwardAuth === true) blocking = true;
    });
    if (blocking) return err({ code: 'not_ready', checks, down });
    return down.length === 0 ? ok({ checks }) : ok({ checks, degraded: down });
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
