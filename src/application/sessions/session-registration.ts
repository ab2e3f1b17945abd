import type { Session } from '../../domain/session';
import { latestExpiry } from '../../domain/session-lifetime';
import { MAX_USER_AGENT, type IndexedSession } from '../ports/session-index';

/** What the login's request tells about the device: as the HTTP adapter read it, never trusted for anything but display. */
export interface LoginDevice {
  /** The User-Agent header, if any. */
  readonly userAgent?: string;
  /** The client's address (see ClientAddressResolver). */
  readonly ip: string;
}

/** The index entry of a new full session: how it logged in, from which device, until when. */
export function indexedSessionOf(session: Session, method: string, device: LoginDevice): IndexedSession {
  return {
    id: session.id,
    username: session.username.toLowerCase(),
    method,
    // Only shown to the account's owner, as text; cut so a client cannot make us store a novel.
    userAgent: (device.userAgent ?? '').slice(0, MAX_USER_AGENT),
    address: device.ip,
    startedAt: session.issuedAt,
    // Until the latest a renewed copy of its cookie can live: "sign out everywhere" must still find it.
    expiresAt: latestExpiry(session),
    lastSeenAt: session.issuedAt,
  };
}
