import type { SessionMethod } from '../../domain/login-methods';
import { err, ok, type Result } from '../../domain/result';
import type { PasskeyOwners } from '../passkeys/passkey-owner';
import type { StoreUnavailable } from '../store-unavailable';
import type { StepUpReferenceError, StepUpSessions } from './step-up-sessions';

export interface DescribeStepUpInput {
  readonly sessionToken?: string;
  /** The `step_up` of the login URL, unchecked. */
  readonly reference: string;
  readonly ip: string;
  readonly requestId?: string;
}

/** What the login page asks in a step-up: only these methods, any one of them. */
export interface DescribeStepUpOutput {
  readonly username: string;
  /** The methods the requirement counts that this account holds; empty when it holds none (the page says so). */
  readonly methods: readonly SessionMethod[];
  readonly maxAge: number | null;
  readonly returnTo: string | null;
}

export type DescribeStepUpError = { readonly code: 'not_logged_in' } | StepUpReferenceError | StoreUnavailable;

/** Tells the login page what a step-up asks of the person whose session brought it (issue 33). */
export class DescribeStepUpUseCase {
  constructor(
    private readonly owners: PasskeyOwners,
    private readonly stepUps: StepUpSessions,
  ) {}

  execute(input: DescribeStepUpInput): Promise<Result<DescribeStepUpOutput, DescribeStepUpError>> {
    return this.owners.forOwner(input, async ({ account, session }) => {
      const opened = this.stepUps.open(input.reference, session);
      if (!opened.ok) return err(opened.error);
      const { maxAge, returnTo } = opened.value;
      return ok({ username: account.username, methods: await this.stepUps.available(opened.value, account), maxAge, returnTo });
    });
  }
}
