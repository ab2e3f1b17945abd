import type { Clock } from '../ports/clock';
import type { SessionIndex } from '../ports/session-index';
import type { AccessTokens } from '../tokens/access-tokens';
import type { DirectoryAccounts } from './directory-accounts';
import type { EndRemovedAccountsUseCase } from './end-removed-accounts';

/** What one check found: how many accounts were asked about, how many were gone, how many sessions ended. */
export interface DirectoryCheck {
  readonly checked: number;
  readonly absent: number;
  readonly ended: number;
}

/**
 * The directory sends no change notices, so it is asked (issue 35): every account that holds an
 * unexpired session or a live access token is looked up, and one the directory no longer holds
 * (deleted, or no longer matched by its filter) is ended everywhere like an account removed from
 * the users file. The accounts come from the shared stores, so any replica's check finds every
 * replica's sessions; several replicas checking is harmless (see {@link EndRemovedAccountsUseCase}).
 * Rejects, having ended nothing, when the directory or a store cannot answer: an outage is never
 * taken for a removal.
 */
export class CheckDirectoryAccountsUseCase {
  constructor(
    private readonly index: SessionIndex,
    private readonly tokens: AccessTokens,
    private readonly directory: DirectoryAccounts,
    private readonly ending: EndRemovedAccountsUseCase,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<DirectoryCheck> {
    const [sessions, tokens] = await Promise.all([this.index.accounts(), this.tokens.accounts(this.clock.now())]);
    const names = [...new Set([...sessions, ...tokens])];
    if (names.length === 0) return { checked: 0, absent: 0, ended: 0 };
    const absent = await this.directory.absent(names);
    const ended = absent.length === 0 ? 0 : await this.ending.execute(absent, 'ldap');
    return { checked: names.length, absent: absent.length, ended };
  }
}
