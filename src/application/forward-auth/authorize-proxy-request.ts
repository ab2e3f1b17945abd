import { parseForwarded, type ForwardedHeaders, type OriginalRequest } from '../../domain/forwarded-request';
import { err, ok, type Result } from '../../domain/result';
import type { Identity } from '../../domain/session';
import type { AccessPolicy } from './access-policy';
import type { AuditLog } from '../ports/audit-log';
import type { IdentityAssertions } from './identity-assertions';
import { isPending, type Awaitable } from '../ports/awaitable';
import type { Authentication, RequestAuthenticator, RequestCredentials } from '../sessions/request-authenticator';
import type { LoginRequired, LoginTargets } from './login-targets';
import type { SessionMethod } from '../../domain/login-methods';
import type { Session } from '../../domain/session';
import { STEP_UP_LIFETIME_MS } from '../../domain/step-up';
import type { AccessDecision } from './access-policy';
import type { Clock } from '../ports/clock';
import type { StepUpReferences } from '../step-up/step-up-references';
import type { RenewedSession } from '../sessions/session-issuer';

export interface AuthorizeProxyRequestInput extends RequestCredentials {
  readonly forwarded: ForwardedHeaders;
}

export interface AuthorizeProxyRequestOutput {
  /** The caller; null only when the policy let an anonymous request through (a public path). */
  readonly identity: Identity | null;
  /** Extra headers the policy wants the upstream to receive. */
  readonly headers: Readonly<Record<string, string>>;
  /** A signed identity assertion for the upstream, present only when the application's rule asks for one and someone is logged in. */
  readonly assertion?: string;
  /**
   * The session renewed by this request (issue 33): the answer sets its cookie, for the
   * application's host `host` (the proxy passes it on to the browser).
   */
  readonly renewed?: RenewedSession & { readonly host: string | null };
}

export type AuthorizeProxyRequestError =
  /** Where to log in and come back to: see LoginRequired. */
  | LoginRequired
  /**
   * `username` is '' for an anonymous caller; `network` is true when the refusal is about the
   * client's address (blocked, not allowed, unreadable) rather than about the person.
   */
  | {
      readonly code: 'forbidden';
      readonly reason: string;
      readonly app: string | null;
      readonly username: string;
      readonly network: boolean;
      /** The request came with an access token or a workload's JWT: a machine, answered without a page to go to. */
      readonly token?: true;
    }
  /**
   * An access token was presented and does not pass (unknown, expired, revoked, malformed, its
   * account gone), or a JWT from a configured issuer that does not verify.
   */
  | { readonly code: 'invalid_token' }
  /** The proxy's headers name no single well-formed request; `field` is the header at fault. */
  | { readonly code: 'bad_forwarded_headers'; readonly field: string; readonly problem: 'missing' | 'malformed' | 'repeated' }
  /** The application has path rules and the path names different resources to different upstreams; `why` names the form. */
  | { readonly code: 'ambiguous_path'; readonly why: string; readonly app: string | null }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' }
  /**
   * A `paths` requirement the session does not meet (issue 33): `reference` is the sealed step-up
   * for the login page (`?step_up=`), `methods` any one of which would meet it, `maxAge` in seconds.
   */
  | {
      readonly code: 'step_up_required';
      readonly methods: readonly SessionMethod[];
      readonly maxAge: number | null;
      readonly app: string | null;
      readonly reference: string;
    };

/** What the use case needs to send a session to a step-up: where to seal it and the time it starts. */
export interface StepUpPrompt {
  readonly references: StepUpReferences;
  readonly clock: Clock;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

const INVALID_TOKEN = err({ code: 'invalid_token' } as const);

const NO_RETURN: LoginRequired = Object.freeze({ code: 'unauthenticated', returnTo: null });

/** Fails closed: an upstream whose rule asks for an assertion never gets the request without one. */
function withAssertion(allowed: AuthorizeProxyRequestOutput, assertion: string | null): Result<AuthorizeProxyRequestOutput, AuthorizeProxyRequestError> {
  return assertion === null ? err({ code: 'store_unavailable' }) : ok({ ...allowed, assertion });
}

/** The forward-auth decision: may this request through to the protected application? */
export class AuthorizeProxyRequestUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly policy: AccessPolicy,
    /** Where a refused browser logs in (the gateway remembers its answers: LoginTargetMemo). */
    private readonly loginTargets: LoginTargets,
    private readonly audit: AuditLog,
    private readonly assertions: IdentityAssertions | null = null,
    private readonly stepUp: StepUpPrompt | null = null,
  ) {}

  /**
   * Answers at once when the authenticator does (every store it asks holds its answer in memory):
   * the forward-auth path then makes no promise at all. Callers may always `await` it.
   */
  execute(input: AuthorizeProxyRequestInput): Awaitable<Result<AuthorizeProxyRequestOutput, AuthorizeProxyRequestError>> {
    let original: OriginalRequest | null = null;
    const parsed = parseForwarded(input.forwarded);
    if (parsed.ok) original = parsed.value;
    else if (parsed.error.code !== 'absent') {
      const { field, code: problem } = parsed.error;
      this.audit.record({ event: 'forwarded_request_refused', proxy: input.forwarded.proxy, field, problem, ip: input.ip, requestId: input.requestId });
      return err({ code: 'bad_forwarded_headers', field, problem });
    }

    const auth = this.authenticator.authenticate(input);
    if (isPending(auth)) return auth.then((a) => this.decide(input, original, a));
    return this.decide(input, original, auth);
  }

  private decide(
    input: AuthorizeProxyRequestInput,
    original: OriginalRequest | null,
    auth: Authentication,
  ): Awaitable<Result<AuthorizeProxyRequestOutput, AuthorizeProxyRequestError>> {
    if (auth.kind === 'locked') return err({ code: 'account_locked', retryAfter: auth.retryAfter });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    if (auth.kind === 'invalid_token') return INVALID_TOKEN;
    const identity = auth.kind === 'session' || auth.kind === 'basic' || auth.kind === 'token' || auth.kind === 'jwt' ? auth.identity : null;
    const machine = auth.kind === 'token' || auth.kind === 'jwt';

    const decision = this.policy.decide({ original, identity, ip: input.ip });
    switch (decision.kind) {
      case 'allow': {
        const renewed = auth.kind === 'session' ? auth.renewed : undefined;
        const allowed: AuthorizeProxyRequestOutput =
          renewed === undefined
            ? { identity, headers: decision.headers ?? NO_HEADERS }
            : { identity, headers: decision.headers ?? NO_HEADERS, renewed: { ...renewed, host: original?.hostname ?? null } };
        if (decision.assertion !== true || identity === null) return ok(allowed);
        // The audience is the application's host: without one named by the proxy there is nothing to sign for.
        if (original === null) return err({ code: 'bad_forwarded_headers', field: 'host', problem: 'missing' });
        // A session's proofs (amr, auth_time, acr); the identity of a local account is shared by its sessions and carries none.
        const proven = auth.kind === 'session' ? auth.session.proven : undefined;
        const assertion = this.assertions === null ? null : this.assertions.assertionFor(identity, original.hostname, proven);
        return isPending(assertion) ? assertion.then((a) => withAssertion(allowed, a)) : withAssertion(allowed, assertion);
      }
      case 'login_required':
        this.audit.record({ event: 'access_denied', username: '', host: original?.hostname ?? '', reason: 'login_required', requestId: input.requestId });
        return err(original === null ? NO_RETURN : this.loginTargets.of(original));
      case 'ambiguous_path':
        this.audit.record({
          event: 'access_denied',
          username: identity?.username ?? '',
          host: original?.hostname ?? '',
          reason: 'ambiguous_path',
          requestId: input.requestId,
        });
        return err({ code: 'ambiguous_path', why: decision.why, app: decision.app ?? null });
      case 'step_up_required':
        if (auth.kind === 'session' && this.stepUp !== null) return this.stepUpFor(auth.session, decision, original, input.requestId);
        // Only a session can step up (the rule says so); anything else is refused, never let through.
        return this.refused(
          { kind: 'deny', reason: 'step_up_impossible', ...(decision.app === undefined ? {} : { app: decision.app }) },
          identity,
          original,
          input,
          machine,
        );
      case 'deny':
        return this.refused(decision, identity, original, input, machine);
    }
  }

  /** A refusal for who the caller is or where they come from, audited. */
  private refused(
    decision: Extract<AccessDecision, { kind: 'deny' }>,
    identity: Identity | null,
    original: OriginalRequest | null,
    input: AuthorizeProxyRequestInput,
    machine = false,
  ): Result<never, AuthorizeProxyRequestError> {
    this.audit.record({
      event: 'access_denied',
      username: identity?.username ?? '',
      host: original?.hostname ?? '',
      reason: decision.reason,
      requestId: input.requestId,
    });
    return err({
      code: 'forbidden',
      reason: decision.reason,
      app: decision.app ?? null,
      username: identity?.username ?? '',
      network: decision.network === true,
      ...(machine ? { token: true as const } : {}),
    });
  }

  /** The refusal that sends a session to prove what a requirement asks, and back to where it was going. */
  private stepUpFor(
    session: Session,
    decision: Extract<AccessDecision, { kind: 'step_up_required' }>,
    original: OriginalRequest | null,
    requestId: string | undefined,
  ): Result<never, AuthorizeProxyRequestError> {
    const { references, clock } = this.stepUp as StepUpPrompt;
    this.audit.record({ event: 'access_denied', username: session.username, host: original?.hostname ?? '', reason: 'step_up_required', requestId });
    const reference = references.seal({
      sessionId: session.id,
      username: session.username,
      methods: decision.methods,
      maxAge: decision.maxAge,
      // Only a target inside the primary's domain: the step-up page is the primary's, like its login.
      returnTo: original === null ? null : this.loginTargets.of(original).returnTo,
      expiresAt: clock.now() + STEP_UP_LIFETIME_MS,
    });
    return err({ code: 'step_up_required', methods: decision.methods, maxAge: decision.maxAge, app: decision.app ?? null, reference });
  }
}
