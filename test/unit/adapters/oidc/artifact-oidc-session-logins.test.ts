import { ArtifactOidcSessionLogins } from '../../../../src/adapters/oidc/artifact-oidc-session-logins';
import { InMemoryOidcArtifacts } from '../../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import type { OidcClients } from '../../../../src/application/oidc/oidc-clients';
import type { OidcClient } from '../../../../src/domain/oidc-client';
import { FixedClock } from '../../../support/fakes';

const client = (clientId: string): OidcClient => ({
  clientId,
  name: clientId,
  secret: null,
  tokenEndpointAuthMethod: 'client_secret_basic',
  redirectUris: [`https://${clientId}.example.com/cb`],
  postLogoutRedirectUris: [],
  allowedUsers: [],
  allowedGroups: [],
  scopes: ['openid'],
});

const configured = (...ids: string[]): OidcClients => {
  const all = ids.map(client);
  return { all: () => all, get: (id) => all.find((c) => c.clientId === id) ?? null };
};

const login = (clientId: string) => ({ clientId, subject: `sub-of-${clientId}`, sid: `sid-${clientId}`, grantId: `grant-${clientId}` });

describe('ArtifactOidcSessionLogins', () => {
  const setUp = (...ids: string[]) => {
    const clock = new FixedClock();
    const artifacts = new InMemoryOidcArtifacts(clock);
    return { clock, artifacts, logins: new ArtifactOidcSessionLogins(artifacts, clock, configured(...ids)) };
  };

  it('keeps every app when two are noted for one session at the same instant', async () => {
    const { clock, logins } = setUp('wiki', 'chat', 'files');
    const until = clock.now() + 3_600_000;
    await Promise.all([logins.add('s1', login('wiki'), until), logins.add('s1', login('chat'), until), logins.add('s1', login('files'), until)]);
    const taken = await logins.take('s1');
    expect(taken.map((l) => l.clientId).sort()).toEqual(['chat', 'files', 'wiki']);
    expect(taken.find((l) => l.clientId === 'wiki')).toEqual(login('wiki'));
  });

  it('hands each app to one taker only, however many end the session at once', async () => {
    const { clock, logins } = setUp('wiki', 'chat');
    const until = clock.now() + 3_600_000;
    await logins.add('s1', login('wiki'), until);
    await logins.add('s1', login('chat'), until);
    const results = await Promise.all([logins.take('s1'), logins.take('s1'), logins.take('s1')]);
    expect(
      results
        .flat()
        .map((l) => l.clientId)
        .sort(),
    ).toEqual(['chat', 'wiki']);
    expect(await logins.take('s1')).toEqual([]);
  });

  it('replaces a later login to the same app and keeps sessions apart', async () => {
    const { clock, logins } = setUp('wiki');
    const until = clock.now() + 3_600_000;
    await logins.add('s1', login('wiki'), until);
    await logins.add('s1', { ...login('wiki'), sid: 'newer' }, until);
    await logins.add('s2', login('wiki'), until);
    expect(await logins.take('s1')).toEqual([{ ...login('wiki'), sid: 'newer' }]);
    expect(await logins.take('s2')).toEqual([login('wiki')]);
  });

  it('forgets an app once the session would have expired, and notes none past it', async () => {
    const { clock, logins } = setUp('wiki', 'chat');
    await logins.add('s1', login('wiki'), clock.now() + 10_000);
    await logins.add('s1', login('chat'), clock.now() - 1);
    clock.advance(11_000);
    expect(await logins.take('s1')).toEqual([]);
  });

  it("outlives the revocation of the app's grant (the provider revokes it before the session ends)", async () => {
    const { clock, artifacts, logins } = setUp('wiki');
    await logins.add('s1', login('wiki'), clock.now() + 3_600_000);
    await artifacts.revokeByGrantId('grant-wiki');
    expect(await logins.take('s1')).toEqual([login('wiki')]);
  });

  it('still takes the apps a session noted in the one-record form of earlier releases', async () => {
    const { artifacts, logins } = setUp('wiki');
    await artifacts.save('PortcullisSessionLogins', 's1', { apps: { wiki: login('wiki'), broken: { clientId: 'x' } } }, 3600);
    expect(await logins.take('s1')).toEqual([login('wiki')]);
    expect(await logins.take('s1')).toEqual([]);
  });
});
