import { safeRedirectTarget } from '../../domain/redirect-target';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { HandoffCodes } from './handoff-codes';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { valueOrUnavailable } from '../store-unavailable';
import type { HandoffSettings } from './issue-handoff-code';

export interface RedeemHandoffCodeInput {
  /** The code as the query string carried it. */
  readonly code: unknown;
  /** Index (in `HandoffSettings.secondaries`) of the secondary whose gateway host received the request. */
  readonly secondary: number;
  /** The browser-binding value from the secondary's host-only hand-off cookie, if any. */
  readonly state?: string;
  readonly ip: string;
  readonly requestId?: string;
}

export interface RedeemHandoffCodeOutput {
  /** The session cookie value for the secondary: the same session (id, expiry, credential binding) as on the primary. */
  readonly sessionToken: string;
  readonly expiresAt: number;
  /** How long the cookie should live: until the session expires, as on the primary. */
  readonly maxAgeMs: number;
  /** Inside the secondary's domain. */
  readonly redirectTarget: string;
}

/**
 * `invalid_code`: unknown, already used, expired, issued for another domain or another browser,
 * or its session has ended since (revoked, expired, credential changed). One code for all of them:
 * the browser learns nothing about which, the audit line does.
 */
export type RedeemHandoffCodeError = { readonly code: 'invalid_code' } | { readonly code: 'store_unavailable' };

const CODE = /^[A-Za-z0-9_-]{16,64}$/;

/**
 * On a secondary: turns a hand-off code from the primary into this domain's session cookie
 * (issue 17). The code is taken from the store first (so it is burned whatever follows: a code
 * tried on the wrong domain or from the wrong browser is gone), then every binding is checked.
 */
export class RedeemHandoffCodeUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly codes: HandoffCodes,
    private readonly clock: Clock,
    private readonly settings: HandoffSettings,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: RedeemHandoffCodeInput): Promise<Result<RedeemHandoffCodeOutput, RedeemHandoffCodeError>> {
    const domain = this.settings.secondaries[input.secondary];
    if (domain === undefined) return err({ code: 'invalid_code' });
    const refuse = (reason: string): Result<never, RedeemHandoffCodeError> => {
      this.audit.record({ event: 'handoff_refused', domain: domain.domain, reason, ip: input.ip, requestId: input.requestId });
      return err({ code: 'invalid_code' });
    };
    const code = input.code;
    if (typeof code !== 'string' || !CODE.test(code)) return refuse('malformed');

    const taken = await valueOrUnavailable(() => this.codes.take(code));
    if (!taken.ok) return taken;
    const grant = taken.value;
    if (grant === null) return refuse('unknown_used_or_expired');
    if (grant.domain !== domain.domain) return refuse('other_domain');
    if (input.state === undefined || grant.state !== input.state) return refuse('other_browser');
    const target = safeRedirectTarget(grant.redirectTarget, domain);
    if (target === null) return refuse('redirect_off_domain');

    // The same checks as any request with that cookie: a session revoked (logout on any domain),
    // expired or made stale between issue and redemption gets no cookie here.
    const auth = await this.authenticator.authenticate({ sessionToken: grant.sealedSession, ip: input.ip, requestId: input.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    if (auth.kind !== 'session') return refuse('session_ended');

    this.audit.record({ event: 'handoff_redeemed', username: auth.session.username, domain: domain.domain, ip: input.ip, requestId: input.requestId });
    return ok({
      sessionToken: grant.sealedSession,
      expiresAt: auth.session.expiresAt,
      maxAgeMs: auth.session.expiresAt - this.clock.now(),
      redirectTarget: target,
    });
  }
}
