import { parseForwarded, type ForwardedHeaders, type OriginalRequest } from '../../domain/forwarded-request';
import { gatewayIndexOfHost } from '../../domain/gateway-domains';
import { safeRedirectTarget } from '../../domain/redirect-target';
import { err, ok, type Result } from '../../domain/result';
import type { Identity } from '../../domain/session';
import type { AccessPolicy } from './access-policy';
import type { AuditLog } from '../ports/audit-log';
import type { IdentityAssertions } from './identity-assertions';
import { isPending, type Awaitable } from '../ports/awaitable';
import type { Authentication, RequestAuthenticator, RequestCredentials } from '../sessions/request-authenticator';
import type { GatewaySettings } from '../settings';

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
}

export type AuthorizeProxyRequestError =
  /** `returnTo` is the original URL when it is safe to send the person back there after login. */
  /**
   * `secondary` (issue 17) is set when the application lies inside a secondary gateway's domain
   * (its index in `secondaryDomains`): the login goes through that domain's hand-off.
   */
  | { readonly code: 'unauthenticated'; readonly returnTo: string | null; readonly secondary?: number }
  /**
   * `username` is '' for an anonymous caller; `network` is true when the refusal is about the
   * client's address (blocked, not allowed, unreadable) rather than about the person.
   */
  | { readonly code: 'forbidden'; readonly reason: string; readonly app: string | null; readonly username: string; readonly network: boolean }
  /** The proxy's headers name no single well-formed request; `field` is the header at fault. */
  | { readonly code: 'bad_forwarded_headers'; readonly field: string; readonly problem: 'missing' | 'malformed' | 'repeated' }
  /** The application has path rules and the path names different resources to different upstreams; `why` names the form. */
  | { readonly code: 'ambiguous_path'; readonly why: string; readonly app: string | null }
  | { readonly code: 'account_locked'; readonly retryAfter: number }
  | { readonly code: 'store_unavailable' };

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** How many original URLs keep where they log in (see returnTargets), and the longest one kept. */
const RETURN_TARGETS_MAX = 256;
const RETURN_TARGET_MAX_LENGTH = 1024;

type UnauthenticatedError = AuthorizeProxyRequestError & { code: 'unauthenticated' };
const NO_RETURN: UnauthenticatedError = Object.freeze({ code: 'unauthenticated', returnTo: null });

/** Fails closed: an upstream whose rule asks for an assertion never gets the request without one. */
function withAssertion(
  identity: Identity,
  headers: Readonly<Record<string, string>>,
  assertion: string | null,
): Result<AuthorizeProxyRequestOutput, AuthorizeProxyRequestError> {
  return assertion === null ? err({ code: 'store_unavailable' }) : ok({ identity, headers, assertion });
}

/** The forward-auth decision: may this request through to the protected application? */
export class AuthorizeProxyRequestUseCase {
  /**
   * Where each recently refused original URL logs in: a browser without a session gets a 302 on
   * every request, and vetting the URL runs the WHATWG URL parser each time (twice for a secondary
   * domain). A memo of a pure function of the URL and the configured domains (fixed for this object), keyed
   * by the exact text, so it answers exactly what the function would; bounded in entries and in
   * the length of a URL it keeps, emptied when full (a flood of distinct paths only pays the
   * parser, as it did without the memo).
   */
  private readonly returnTargets = new Map<string, UnauthenticatedError>();

  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly policy: AccessPolicy,
    private readonly settings: GatewaySettings,
    private readonly audit: AuditLog,
    private readonly assertions: IdentityAssertions | null = null,
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
    const identity = auth.kind === 'session' || auth.kind === 'basic' ? auth.identity : null;

    const decision = this.policy.decide({ original, identity, ip: input.ip });
    switch (decision.kind) {
      case 'allow': {
        if (decision.assertion !== true || identity === null) return ok({ identity, headers: decision.headers ?? NO_HEADERS });
        // The audience is the application's host: without one named by the proxy there is nothing to sign for.
        if (original === null) return err({ code: 'bad_forwarded_headers', field: 'host', problem: 'missing' });
        const headers = decision.headers ?? NO_HEADERS;
        const assertion = this.assertions === null ? null : this.assertions.assertionFor(identity, original.hostname);
        return isPending(assertion) ? assertion.then((a) => withAssertion(identity, headers, a)) : withAssertion(identity, headers, assertion);
      }
      case 'login_required':
        this.audit.record({ event: 'access_denied', username: '', host: original?.hostname ?? '', reason: 'login_required', requestId: input.requestId });
        return err(this.unauthenticated(original));
      case 'ambiguous_path':
        this.audit.record({
          event: 'access_denied',
          username: identity?.username ?? '',
          host: original?.hostname ?? '',
          reason: 'ambiguous_path',
          requestId: input.requestId,
        });
        return err({ code: 'ambiguous_path', why: decision.why, app: decision.app ?? null });
      case 'deny':
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
        });
    }
  }

  /**
   * Where the login goes, remembered for recent original URLs (see returnTargets): a pure
   * function of the URL (its host included) and the configured domains.
   */
  private unauthenticated(original: OriginalRequest | null): UnauthenticatedError {
    if (original === null) return NO_RETURN;
    const url = original.url;
    const known = this.returnTargets.get(url);
    if (known !== undefined) return known;
    const error = Object.freeze(this.whereToLogIn(original));
    if (url.length <= RETURN_TARGET_MAX_LENGTH) {
      if (this.returnTargets.size >= RETURN_TARGETS_MAX) this.returnTargets.clear();
      this.returnTargets.set(url, error);
    }
    return error;
  }

  /** Back to the original URL when it is inside the primary's domain, or inside a secondary's (via its hand-off). */
  private whereToLogIn(original: OriginalRequest): UnauthenticatedError {
    const returnTo = safeRedirectTarget(original.url, this.settings.protectedDomain);
    const secondaries = this.settings.secondaryDomains;
    if (returnTo !== null || secondaries === undefined || secondaries.length === 0) return { code: 'unauthenticated', returnTo };
    // Each domain's own check: a target is only ever handed to the domain that contains it.
    const secondary = gatewayIndexOfHost(secondaries, original.hostname);
    const target = secondary === -1 ? null : safeRedirectTarget(original.url, secondaries[secondary]);
    return target === null ? NO_RETURN : { code: 'unauthenticated', returnTo: target, secondary };
  }
}
