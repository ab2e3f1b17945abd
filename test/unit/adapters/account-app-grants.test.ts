import { Sha256SubjectIdentifiers } from '../../../src/adapters/crypto/sha256-subject-identifiers';
import { AccountAppGrants } from '../../../src/adapters/oidc/account-app-grants';
import { ArtifactOidcAccounts } from '../../../src/adapters/oidc/artifact-oidc-accounts';
import { ConfiguredOidcClients } from '../../../src/adapters/oidc/configured-oidc-clients';
import { InMemoryOidcArtifacts } from '../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import type { OidcClient } from '../../../src/domain/oidc-client';
import type { Identity } from '../../../src/domain/session';
import { FixedClock } from '../../support/fakes';

const TTL = 3600;
const client = (clientId: string, name: string): OidcClient => ({
  clientId,
  name,
  secret: 's'.repeat(32),
  tokenEndpointAuthMethod: 'client_secret_basic',
  redirectUris: [`https://${clientId}.example.com/cb`],
  postLogoutRedirectUris: [],
  allowedUsers: [],
  allowedGroups: [],
  scopes: ['openid'],
});
const alice: Identity = { username: 'alice', name: 'Alice', email: 'alice@example.com', groups: [], provider: 'username', oauth: false, totp: false };

function setUp() {
  const clock = new FixedClock();
  const subjects = new Sha256SubjectIdentifiers();
  const accounts = new ArtifactOidcAccounts(new InMemoryOidcArtifacts(clock), TTL);
  const grants = new AccountAppGrants(accounts, subjects, new ConfiguredOidcClients([client('wiki', 'Wiki'), client('git', 'Git')]), clock, TTL);
  const subject = subjects.subjectOf('username', 'alice');
  const now = (): number => Math.floor(clock.now() / 1000);
  const loggedIn = (clients: Record<string, number>) => accounts.remember({ subject, identity: alice, credentialSince: 0, clients }, TTL);
  return { clock, accounts, grants, subject, now, loggedIn };
}

describe('AccountAppGrants', () => {
  it('lists the configured apps logged in to, most recent first, with their names', async () => {
    const { grants, now, loggedIn, clock } = setUp();
    await loggedIn({ wiki: now() - 10, git: now() - 5, gone: now() });
    expect(await grants.list(alice)).toEqual([
      { clientId: 'git', name: 'Git', lastLoginAt: (now() - 5) * 1000 },
      { clientId: 'wiki', name: 'Wiki', lastLoginAt: (now() - 10) * 1000 },
    ]);
    clock.advance((TTL - 7) * 1000);
    expect((await grants.list(alice)).map((g) => g.clientId)).toEqual(['git']);
  });

  it('ends one app (listed no more) or all of them, and says when an app had nothing to end', async () => {
    const { grants, accounts, subject, now, loggedIn, clock } = setUp();
    await loggedIn({ wiki: now(), git: now() });
    expect(await grants.end(alice, 'wiki')).toBe(true);
    expect(await grants.end(alice, 'wiki')).toBe(false);
    expect(await grants.end(alice, 'nobody')).toBe(false);
    expect((await grants.list(alice)).map((g) => g.clientId)).toEqual(['git']);
    expect((await accounts.tokensEnded(subject)).clients.wiki).toBe(now() + 1);
    clock.advance(2_000);
    await grants.endAll(alice);
    expect(await grants.list(alice)).toEqual([]);
    expect((await accounts.tokensEnded(subject)).all).toBe(now() + 1);
  });

  it('is empty for a person who never logged in to an app', async () => {
    expect(await setUp().grants.list(alice)).toEqual([]);
  });
});
