import { withProven, type ProvenMethods, type SessionMethod } from '../../domain/login-methods';
import { TOTP_PENDING_LIFETIME_MS, type Session } from '../../domain/session';
import { periodOf, renewableUntilOf, renewedExpiry, type SessionLifetimes } from '../../domain/session-lifetime';
import type { AuditLog } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { SessionIndex } from '../ports/session-index';
import type { SessionSealer } from '../ports/session-sealer';
import type { GatewaySettings } from '../settings';
import { indexedSessionOf, type LoginDevice } from './session-registration';

/** Who a session is for and what it proved: everything but what the issuer decides (its id, times and state). */
export type SessionClaims = Omit<Session, 'id' | 'issuedAt' | 'expiresAt' | 'totpPending' | 'proven' | 'renewableUntil'> & {
  /** What was proven before this step (the password of a pending session); the issuer adds what `how` proves now. */
  readonly proven?: ProvenMethods;
};

/** A session and the cookie value that carries it. */
export interface IssuedSession {
  readonly session: Session;
  /** The session sealed for the client. */
  readonly token: string;
}

/** A session renewed just now (issue 33): the same id with a later expiry, its new cookie value, and that cookie's Max-Age. */
export interface RenewedSession extends IssuedSession {
  readonly maxAgeMs: number;
}

/** Renews sessions in use (see SessionIssuer.renew); the request authenticator's view of the issuer. */
export interface SessionRenewal {
  renew(session: Session): RenewedSession | null;
}

/** The lifetimes of the settings, as the domain's rules take them. */
export function lifetimesOf(settings: GatewaySettings): SessionLifetimes {
  return {
    lifetimeMs: settings.sessionLifetimeMs,
    rememberMs: settings.rememberMeLifetimeMs ?? 0,
    maxLifetimeMs: settings.maxLifetimeMs ?? 0,
    idleTimeoutMs: settings.idleTimeoutMs ?? 0,
  };
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
export class SessionIssuer implements SessionRenewal {
  constructor(
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: GatewaySettings,
    private readonly index: SessionIndex,
    private readonly audit: AuditLog,
    private readonly sealer: SessionSealer,
  ) {}

  /**
   * A full session for `claims`, living SESSION_EXPIRY (REMEMBER_ME_EXPIRY when `claims.remember`
   * and that is on) and renewable up to SESSION_MAX_LIFETIME when that is on: indexed, audited (unless `how.audited` is
   * null), sealed. Rejects with StateStoreUnavailableError when the index cannot be written: no
   * session is handed out then.
   */
  async full(claims: SessionClaims, how: HowIssued, request: IssueRequest): Promise<IssuedSession> {
    const now = this.clock.now();
    const lifetimes = lifetimesOf(this.settings);
    // A session passed as claims (a second factor's step, a reissue) brings its renewal bound: the new one gets its own.
    const { remember, ...rest } = claims as SessionClaims & Pick<Session, 'renewableUntil'>;
    delete rest.renewableUntil;
    const remembered = remember === true && lifetimes.rememberMs > 0;
    const renewableUntil = renewableUntilOf(now, lifetimes.maxLifetimeMs);
    const session: Session = {
      ...rest,
      id: this.ids.next(),
      issuedAt: now,
      expiresAt: now + periodOf({ remember: remembered ? true : undefined }, lifetimes),
      totpPending: false,
      proven: withProven(claims.proven ?? {}, how.proves, now),
      ...(remembered ? { remember: true as const } : {}),
      ...(renewableUntil === undefined ? {} : { renewableUntil }),
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
   * The same session with a later expiry (issue 33), when it is in use past half its period and
   * SESSION_MAX_LIFETIME was on at its login (see renewedExpiry); null otherwise. Its id, start,
   * proofs and index entry stay: the entry was registered until the renewal bound, and
   * revocations last that long (latestExpiry), so nothing is written here.
   */
  renew(session: Session): RenewedSession | null {
    const now = this.clock.now();
    const expiresAt = renewedExpiry(session, lifetimesOf(this.settings), now);
    if (expiresAt === null) return null;
    const renewed: Session = { ...session, expiresAt };
    return { session: renewed, token: this.sealer.seal(renewed), maxAgeMs: expiresAt - now };
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
