import { checkRequirement, type Requirement } from '../../domain/login-methods';
import { err, ok, type Result } from '../../domain/result';
import type { Identity, Session } from '../../domain/session';
import { STEP_UP_LIFETIME_MS } from '../../domain/step-up';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { RequestAuthenticator } from '../sessions/request-authenticator';
import type { StepUpReferences } from '../step-up/step-up-references';

export interface AdminSettings {
  /** ADMIN_GROUPS; never empty here (no console is built without them). */
  readonly groups: readonly string[];
  /** ADMIN_STEP_UP_MAX_AGE, in seconds. */
  readonly stepUpMaxAge: number;
  /** Where the step-up sends the administrator back to: the console page. */
  readonly consoleUrl: string;
}

/** Every admin request carries these: only the session cookie counts (never Basic, a token or a JWT). */
export interface AdminRequest {
  readonly sessionToken?: string;
  readonly ip: string;
  readonly requestId?: string;
}

export interface Administrator {
  readonly identity: Identity;
  readonly session: Session;
}

/**
 * `admin_required`: no full session of a member of ADMIN_GROUPS (anonymous, Basic, a token, a JWT,
 * a TOTP code still owed, or a person in no admin group). `step_up_required`: an administrator whose
 * second factor is older than ADMIN_STEP_UP_MAX_AGE: `reference` is the login page's `?step_up=`.
 */
export type AdminRefusal =
  | { readonly code: 'admin_required' }
  | { readonly code: 'step_up_required'; readonly reference: string; readonly methods: readonly string[]; readonly maxAge: number }
  | { readonly code: 'store_unavailable' };

/**
 * Decides, on every admin request, whether its caller is an administrator with a fresh second
 * factor (issue 36). The one place the console's access is decided; every admin use case asks it first.
 */
export class AdminGate {
  private readonly requirement: Requirement;
  private readonly groups: ReadonlySet<string>;

  constructor(
    private readonly authenticator: RequestAuthenticator,
    private readonly references: StepUpReferences,
    private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly settings: AdminSettings,
  ) {
    this.requirement = Object.freeze({ secondFactor: true, methods: null, maxAgeMs: settings.stepUpMaxAge * 1000 });
    this.groups = new Set(settings.groups);
  }

  async admit(request: AdminRequest): Promise<Result<Administrator, AdminRefusal>> {
    const auth = await this.authenticator.authenticate({ sessionToken: request.sessionToken, ip: request.ip, requestId: request.requestId });
    if (auth.kind === 'unavailable') return err({ code: 'store_unavailable' });
    if (auth.kind !== 'session' || !auth.identity.groups.some((g) => this.groups.has(g))) {
      this.audit.record({
        event: 'admin_refused',
        username: auth.kind === 'session' ? auth.identity.username : '',
        ip: request.ip,
        reason: 'admin_required',
        requestId: request.requestId,
      });
      return err({ code: 'admin_required' });
    }
    const now = this.clock.now();
    const outcome = checkRequirement(this.requirement, { kind: 'session', proven: auth.session.proven }, now);
    if (outcome.kind === 'met') return ok({ identity: auth.identity, session: auth.session });
    const methods = outcome.kind === 'step_up' ? outcome.methods : [];
    const reference = this.references.seal({
      sessionId: auth.session.id,
      username: auth.session.username,
      methods: outcome.kind === 'step_up' ? outcome.methods : ['totp', 'passkey'],
      maxAge: this.settings.stepUpMaxAge,
      returnTo: this.settings.consoleUrl,
      expiresAt: now + STEP_UP_LIFETIME_MS,
    });
    this.audit.record({ event: 'admin_refused', username: auth.identity.username, ip: request.ip, reason: 'step_up_required', requestId: request.requestId });
    return err({ code: 'step_up_required', reference, methods, maxAge: this.settings.stepUpMaxAge });
  }
}

/**
 * The gate of a state-changing admin request: refused (and audited) on evidence of another site
 * before anything else, then {@link AdminGate.admit}. Every admin POST use case starts here.
 */
export async function admitChange(
  gate: AdminGate,
  audit: AuditLog,
  request: AdminRequest & { readonly fromThisSite: boolean },
): Promise<Result<Administrator, AdminRefusal | { readonly code: 'cross_site_request' }>> {
  if (!request.fromThisSite) {
    audit.record({ event: 'admin_refused', username: '', ip: request.ip, reason: 'cross_site', requestId: request.requestId });
    return err({ code: 'cross_site_request' });
  }
  return gate.admit(request);
}
