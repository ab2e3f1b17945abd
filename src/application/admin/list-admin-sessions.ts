import { ok, type Result } from '../../domain/result';
import { liveSessionsOf } from '../account/list-account-sessions';
import type { RevokedSessions } from '../ports/revoked-sessions';
import type { IndexedSession, SessionIndex } from '../ports/session-index';
import { unavailableAsError } from '../store-unavailable';
import type { AccountDirectory } from './account-directory';
import type { AdminGate, AdminRefusal, AdminRequest } from './admin-gate';

export interface ListAdminSessionsInput extends AdminRequest {
  /** Only this person's sessions; null: everyone the user stores list. */
  readonly username: string | null;
}

/**
 * `GET /api/admin/sessions` (issue 36): live sessions (neither expired nor revoked) from the session
 * index, newest first. The index is kept by username, so "everyone" means everyone the stores list.
 */
export class ListAdminSessionsUseCase {
  constructor(
    private readonly gate: AdminGate,
    private readonly directory: AccountDirectory,
    private readonly index: SessionIndex,
    private readonly revoked: RevokedSessions,
  ) {}

  async execute(input: ListAdminSessionsInput): Promise<Result<readonly IndexedSession[], AdminRefusal>> {
    const admitted = await this.gate.admit(input);
    if (!admitted.ok) return admitted;
    return unavailableAsError(async () => ok(await liveSessionsOfPeople(input.username, this.directory, this.index, this.revoked)));
  }
}

/** The live sessions of one person, or of everyone the directory lists, newest first. */
export async function liveSessionsOfPeople(
  username: string | null,
  directory: AccountDirectory,
  index: SessionIndex,
  revoked: RevokedSessions,
): Promise<IndexedSession[]> {
  const names = username !== null ? [username] : (await directory.list()).map((l) => l.account.username);
  const lists = await Promise.all(names.map((n) => liveSessionsOf(n, index, revoked)));
  return lists.flat().sort((a, b) => b.startedAt - a.startedAt);
}
