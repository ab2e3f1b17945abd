import { withProven, type ProvenMethods, type SessionMethod } from '../../domain/login-methods';
import { TOTP_PENDING_LIFETIME_MS, type Session } from '../../domain/session';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { SessionIndex } from '../ports/session-index';
import type { SessionSealer } from '../ports/session-sealer';
import type { GatewaySettings } from '../settings';
import { indexedSessionOf, type LoginDevice } from './session-registration';

/** Who a session is for and what it proved: everything but what the issuer decides (its id, times and state). */
export type SessionClaims = Omit<Session, 'id' | 'issuedAt' | 'expiresAt' | 'totpPending' | 'proven'> & {
  /** What was proven before this step (the password of a pending session); the issuer adds what `how` proves now. */
  readonly proven?: ProvenMethods;
};

/** A session and the cookie value that carries it. */
export interface IssuedSession {
  readonly session: Session;
  /** The session sealed for the client. */
  readonly token: string;
}

/** The request a session is issued for: its device (shown on the account page) and its id for the audit log. */
export interface IssueRequest extends LoginDevice {
  readonly requestId?: string;
}

/** How a full session came about. */
export interface HowIssued {
  /** The login method the session index records (`password`, `totp`, `passkey`, an OAuth provider's id…). */
  readonly method: string;
  /**
   * The `login_succeeded` audit's method when it differs (`passkey_enrolment`, `oauth:github`), or
   * null when the session replaces one without a login (a second factor changed on the account page).
   */
  readonly audited?: string | null;
  /** The methods this login proved just now (issue 33); the session records them at the issue time. */
  readonly proves: readonly SessionMethod[];
}

/**
 * The one place a session is made (issue 31): its id and times, its registration in the session
 * index, the `login_succeeded` audit and the seal. Every login path (password, TOTP, passkey,
 * passkey enrolment, OAuth, a second factor changed) goes through it, so a new one cannot forget
 * a step: a full session that "sign out everywhere" could not find must not exist, so it is
 * registered before it is handed out. `test/unit/application/sessions/session-issuer.test.ts` keeps every
 * other file of the application from building or registering one.
 */
export class SessionIssuer {
  constructor(
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly index: SessionIndex,
    private readonly audit: AuditLog,
    private readonly sealer: SessionSealer,
  ) {}

  /**
   * A full session for `claims`, living SESSION_EXPIRY: indexed, audited (unless `how.audited` is
   * null), sealed. Rejects with StateStoreUnavailableError when the index cannot be written: no
   * session is handed out then.
   */
  async full(claims: SessionClaims, how: HowIssued, request: IssueRequest): Promise<IssuedSession> {
    const now = this.clock.now();
    const session: Session = {
      ...claims,
      id: this.ids.next(),
      issuedAt: now,
      expiresAt: now + this.settings.sessionLifetimeMs,
      totpPending: false,
      proven: withProven(claims.proven ?? {}, how.proves, now),
    };
    await this.index.register(indexedSessionOf(session, how.method, request));
    const audited = how.audited === undefined ? how.method : how.audited;
    if (audited !== null)
      this.audit.record({ event: 'login_succeeded', username: session.username, method: audited, ip: request.ip, requestId: request.requestId });
    return { session, token: this.sealer.seal(session) };
  }

  /**
   * A session whose password was accepted while a second factor is still owed: it passes nothing
   * but the second step and lives minutes, so it is neither indexed nor audited as a login.
   */
  pending(claims: SessionClaims): IssuedSession {
    const now = this.clock.now();
    const session: Session = {
      ...claims,
      proven: withProven({}, ['password'], now),
      id: this.ids.next(),
      issuedAt: now,
      expiresAt: now + Math.min(TOTP_PENDING_LIFETIME_MS, this.settings.sessionLifetimeMs),
      totpPending: true,
    };
    return { session, token: this.sealer.seal(session) };
  }

  /**
   * The same session, having just proven `proves` again (issue 33): its id, start and expiry stay
   * (the account page and "sign out everywhere" keep knowing it), the times of what it proved move
   * forward, and nothing it proved before is dropped. `account` brings the current name, e-mail and
   * groups. Audited as `stepped_up`, never as a login.
   */
  stepUp(session: Session, account: Pick<Session, 'name' | 'email' | 'groups'>, proves: readonly SessionMethod[], request: IssueRequest): IssuedSession {
    const stepped: Session = {
      ...session,
      name: account.name,
      email: account.email,
      groups: account.groups,
      proven: withProven(session.proven, proves, this.clock.now()),
    };
    this.audit.record({ event: 'stepped_up', username: session.username, methods: [...proves], ip: request.ip, requestId: request.requestId });
    return { session: stepped, token: this.sealer.seal(stepped) };
  }
}
