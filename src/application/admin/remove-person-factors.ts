import type { RevokedSessions } from '../ports/revoked-sessions';
import type { SessionIndex } from '../ports/session-index';
import { liveSessionsOf } from '../account/list-account-sessions';

/** The sessions an administrator's removal of a person's second factor ends, and how. */
export interface PersonSessions {
  readonly index: SessionIndex;
  readonly revoked: RevokedSessions;
}

/**
 * Ends every live session of `username` but `keep` (the acting administrator's own, when they act
 * on themselves): a removed factor may be one a thief holds, and its sessions go with it.
 */
export async function endSessionsOf(username: string, keep: string, sessions: PersonSessions): Promise<number> {
  const live = (await liveSessionsOf(username, sessions.index, sessions.revoked)).filter((s) => s.id !== keep);
  for (const s of live) await sessions.revoked.revoke(s.id, s.expiresAt);
  return live.length;
}
