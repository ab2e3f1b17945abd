import type { ProtectedDomain } from '../../domain/cookie-domain';
import { safeRedirectTarget } from '../../domain/redirect-target';
import { err, ok, type Result } from '../../domain/result';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { HandoffCodes } from './handoff-codes';
import type { IdGenerator } from '../ports/id-generator';
import type { SessionSealer } from '../ports/session-sealer';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import { valueOrUnavailable } from '../store-unavailable';

/** What the hand-off use cases need of the configuration (issue 17). */
export interface HandoffSettings {
  /** The secondary gateways' cookie domains (APP_URL's entries after the first), in order. */
  readonly secondaries: readonly ProtectedDomain[];
  /** How long a code lives: at most 30 s (it only has to survive two redirects). */
  readonly codeLifetimeMs: number;
}

export interface IssueHandoffCodeInput {
  /** The primary's session cookie, if any. */
  readonly sessionToken?: string;
  /** The secondary cookie domain asked for, as the query string carried it. */
  readonly domain: unknown;
  /** The secondary's browser-binding value (see `HandoffGrant.state`), as the query string carried it. */
  readonly state: unknown;
  /** Where to go on the secondary once its cookie is set, as the query string carried it. */
  readonly redirectUri: unknown;
  readonly ip: string;
  readonly requestId?: string;
}

export interface IssueHandoffCodeOutput {
  readonly code: string;
  /** Index of the secondary in `HandoffSettings.secondaries`, so the adapter knows its URL. */
  readonly secondary: number;
}

/**
 * `unknown_domain`: not a configured secondary (the primary vouches for no one else).
 * `invalid_redirect`: the target is not inside that secondary's domain, or is no URL.
 * `invalid_state`: no well-formed browser-binding value.
 * `login_required`: no full session here (none, or TOTP still owed): log in on the primary first, then come back.
 * `store_unavailable`: the code could not be stored or the session not checked.
 */
export type IssueHandoffCodeError =
  | { readonly code: 'unknown_domain' }
  | { readonly code: 'invalid_redirect' }
  | { readonly code: 'invalid_state' }
  | { readonly code: 'login_required' }
  | { readonly code: 'store_unavailable' };

/** A random value from the secondary: URL-safe, long enough to be unguessable, short enough to be bounded. */
export const HANDOFF_STATE = /^[A-Za-z0-9_-]{22,64}$/;

/** Longest life of a hand-off code, whatever is configured. */
export const MAX_HANDOFF_CODE_LIFETIME_MS = 30_000;

/**
 * On the primary: vouches for the logged-in person towards a secondary cookie domain with a
 * single-use, short-lived code (issue 17). The code stands for the session itself (sealed, so the
 * store holds nothing readable), the secondary it is meant for, the browser that asked (state)
 * and where to go next; the URL carries only the code.
 */
export class IssueHandoffCodeUseCase {
  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly codes: HandoffCodes,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly sealer: SessionSealer,
    private readonly settings: HandoffSettings,
    private readonly audit: AuditLog,
  ) {}

  async execute(input: IssueHandoffCodeInput): Promise<Result<IssueHandoffCodeOutput, IssueHandoffCodeError>> {
    const asked = typeof input.domain === 'string' ? input.domain.toLowerCase() : '';
    const secondary = this.settings.secondaries.findIndex((d) => d.domain === asked);
    if (secondary === -1) return err({ code: 'unknown_domain' });
    const domain = this.settings.secondaries[secondary];
    // The secondary's own check, repeated here: a code is never issued towards a target outside its domain.
    const target = safeRedirectTarget(input.redirectUri, domain);
    if (target === null) return err({ code: 'invalid_redirect' });
    if (typeof input.state !== 'string' || !HANDOFF_STATE.test(input.state)) return err({ code: 'invalid_state' });

    const auth = await this.authenticator.authenticate({ sessionToken: input.sessionToken, ip: input.ip, requestId: input.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    // A TOTP-pending session, HTTP Basic or nothing: the person logs in here first.
    if (auth.kind !== 'session') return err({ code: 'login_required' });

    const code = this.ids.next();
    const lifetime = Math.min(this.settings.codeLifetimeMs, MAX_HANDOFF_CODE_LIFETIME_MS);
    const grant = { domain: domain.domain, state: input.state, sealedSession: this.sealer.seal(auth.session), redirectTarget: target };
    const stored = await valueOrUnavailable(() => this.codes.put(code, grant, this.clock.now() + lifetime));
    if (!stored.ok) return stored;
    this.audit.record({ event: 'handoff_issued', username: auth.session.username, domain: domain.domain, ip: input.ip, requestId: input.requestId });
    return ok({ code, secondary });
  }
}
