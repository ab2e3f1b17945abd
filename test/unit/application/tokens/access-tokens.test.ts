import { HmacTokenSecrets } from '../../../../src/adapters/crypto/hmac-token-secrets';
import { InMemoryAccessTokens } from '../../../../src/adapters/state/memory/in-memory-access-tokens';
import type { AccessRulesSource } from '../../../../src/application/forward-auth/access-rules-source';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import { CreateAccessTokenUseCase } from '../../../../src/application/tokens/create-access-token';
import { ListAccessTokensUseCase } from '../../../../src/application/tokens/list-access-tokens';
import { RevokeAccessTokenUseCase } from '../../../../src/application/tokens/revoke-access-token';
import { TokenAdministration } from '../../../../src/application/tokens/token-administration';
import { TokenIssuer } from '../../../../src/application/tokens/token-issuer';
import { TokenRevocation } from '../../../../src/application/tokens/token-revocation';
import type { AccessRules } from '../../../../src/domain/access-rules';
import { isTokenShaped, MAX_TOKENS_PER_ACCOUNT, tokenRevocationId } from '../../../../src/domain/access-token';
import { aUser } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { TEST_SECRET } from '../../../support/credentials';

const ip = '198.51.100.7';
const DAY = 24 * 3600 * 1000;

/** Rules naming these applications (all the issuer reads of them). */
function rulesNaming(...names: string[]): AccessRulesSource {
  const rules = { apps: [...names.map((name) => ({ name })), { name: null }] } as unknown as AccessRules;
  return { current: () => rules, version: () => 1, problems: () => [], close: () => undefined };
}

function setUp() {
  const core = makeCore([aUser().named('alice').withPassword('pw').build(), aUser().named('bob').withPassword('pw').build()]);
  const tokens = new InMemoryAccessTokens();
  const secrets = new HmacTokenSecrets(TEST_SECRET);
  const issuer = new TokenIssuer(tokens, secrets, rulesNaming('grafana', 'wiki'), core.ids, core.clock, core.audit, { maxLifetimeDays: 90 });
  const revocation = new TokenRevocation(tokens, core.revoked, core.clock, core.audit);
  return {
    core,
    tokens,
    secrets,
    issuer,
    revocation,
    create: new CreateAccessTokenUseCase(core.authenticator, core.users, issuer, core.audit),
    list: new ListAccessTokensUseCase(core.authenticator, core.users, tokens),
    revoke: new RevokeAccessTokenUseCase(core.authenticator, core.users, revocation, core.audit),
    admin: new TokenAdministration(core.users, tokens, issuer, revocation),
  };
}

describe('TokenIssuer', () => {
  it('makes a token-shaped secret, stores only its keyed hash, and audits the creation without the secret', async () => {
    const { issuer, tokens, secrets, core } = setUp();
    const result = await issuer.issue({ username: 'alice', name: ' ci ', apps: ['grafana'], expiresInDays: 7, by: 'account', requestId: 'r1' });
    if (!result.ok) throw new Error(result.error.code);
    const { token, record } = result.value;
    expect(isTokenShaped(token)).toBe(true);
    expect(record).toEqual({
      id: 'id-1',
      hash: secrets.hashOf(token),
      username: 'alice',
      name: 'ci',
      apps: ['grafana'],
      createdAt: core.clock.now(),
      expiresAt: core.clock.now() + 7 * DAY,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(await tokens.list('alice')).toEqual([record]);
    expect(JSON.stringify(await tokens.list('alice'))).not.toContain(token);
    expect(core.audit.events).toContainEqual({
      event: 'token_created',
      username: 'alice',
      id: 'id-1',
      name: 'ci',
      apps: ['grafana'],
      expiresAt: new Date(record.expiresAt).toISOString(),
      by: 'account',
      requestId: 'r1',
    });
    expect(JSON.stringify(core.audit.events)).not.toContain(token);
  });

  it('gives a token without an expiry the longest life, and refuses one beyond it', async () => {
    const { issuer, core } = setUp();
    const result = await issuer.issue({ username: 'alice', name: 'ci', by: 'cli' });
    expect(result.ok && result.value.record.expiresAt).toBe(core.clock.now() + 90 * DAY);
    expect(result.ok && result.value.record.apps).toBeNull();
    expect(await issuer.issue({ username: 'alice', name: 'ci', expiresInDays: 91, by: 'cli' })).toEqual({
      ok: false,
      error: { code: 'invalid_fields', fields: ['expiresInDays'] },
    });
  });

  it('refuses bad fields, and applications the rules do not name, storing nothing', async () => {
    const { issuer, tokens } = setUp();
    expect(await issuer.issue({ username: 'alice', name: '', apps: 'grafana', expiresInDays: 0, by: 'account' })).toEqual({
      ok: false,
      error: { code: 'invalid_fields', fields: ['name', 'apps', 'expiresInDays'] },
    });
    expect(await issuer.issue({ username: 'alice', name: 'ci', apps: ['grafana', 'nope'], by: 'account' })).toEqual({
      ok: false,
      error: { code: 'invalid_fields', fields: ['apps'] },
    });
    expect(await tokens.list('alice')).toEqual([]);
  });

  it('refuses a token past the most live ones an account may hold; revoked and expired ones do not count', async () => {
    const { issuer, revocation, core } = setUp();
    const first = await issuer.issue({ username: 'alice', name: 'short', expiresInDays: 1, by: 'cli' });
    const second = await issuer.issue({ username: 'alice', name: 'revoked', by: 'cli' });
    for (let i = 2; i < MAX_TOKENS_PER_ACCOUNT; i += 1) await issuer.issue({ username: 'alice', name: `t${i}`, by: 'cli' });
    expect(await issuer.issue({ username: 'alice', name: 'one more', by: 'cli' })).toEqual({ ok: false, error: { code: 'too_many_tokens' } });
    expect((await issuer.issue({ username: 'bob', name: 'his own', by: 'cli' })).ok).toBe(true);
    if (!second.ok || !first.ok) throw new Error('not issued');
    await revocation.revoke({ username: 'alice', id: second.value.record.id, by: 'cli' });
    expect((await issuer.issue({ username: 'alice', name: 'in its place', by: 'cli' })).ok).toBe(true);
    core.clock.advance(DAY + 1);
    expect((await issuer.issue({ username: 'alice', name: 'in place of the expired', by: 'cli' })).ok).toBe(true);
  });
});

describe('TokenRevocation', () => {
  it('replicates the revocation until the token’s expiry, then marks the record, and audits it', async () => {
    const { issuer, revocation, tokens, core } = setUp();
    const issued = await issuer.issue({ username: 'alice', name: 'ci', by: 'account' });
    if (!issued.ok) throw new Error(issued.error.code);
    const replicated = jest.spyOn(core.revoked, 'revoke');
    expect(await revocation.revoke({ username: 'alice', id: issued.value.record.id, by: 'cli' })).toEqual({ ok: true, value: {} });
    expect(replicated).toHaveBeenCalledWith(tokenRevocationId(issued.value.record.id), issued.value.record.expiresAt);
    expect(await core.revoked.isRevoked(tokenRevocationId(issued.value.record.id))).toBe(true);
    expect((await tokens.list('alice'))[0].revokedAt).toBe(core.clock.now());
    expect(core.audit.events).toContainEqual({ event: 'token_revoked', username: 'alice', id: issued.value.record.id, by: 'cli', requestId: undefined });
    expect(await revocation.revoke({ username: 'alice', id: issued.value.record.id, by: 'cli' })).toEqual({ ok: false, error: { code: 'token_not_found' } });
  });

  it('never confirms another account’s token, and leaves the record live (the retry safe) when the replication fails', async () => {
    const { issuer, revocation, tokens, core } = setUp();
    const issued = await issuer.issue({ username: 'alice', name: 'ci', by: 'account' });
    if (!issued.ok) throw new Error(issued.error.code);
    const { id } = issued.value.record;
    expect(await revocation.revoke({ username: 'bob', id, by: 'cli' })).toEqual({ ok: false, error: { code: 'token_not_found' } });
    jest.spyOn(core.revoked, 'revoke').mockRejectedValueOnce(new StateStoreUnavailableError('redis'));
    await expect(revocation.revoke({ username: 'alice', id, by: 'cli' })).rejects.toThrow(StateStoreUnavailableError);
    expect((await tokens.list('alice'))[0].revokedAt).toBeNull();
    expect((await revocation.revoke({ username: 'alice', id, by: 'cli' })).ok).toBe(true);
  });
});

describe('the account page token use cases', () => {
  it('create, list and revoke the caller’s own tokens with a full session', async () => {
    const { create, list, revoke, core } = setUp();
    const { token: sessionToken } = await signIn(core, 'alice', 'pw');
    const created = await create.execute({ sessionToken, fromThisSite: true, ip, name: 'backup', apps: ['wiki'], expiresInDays: 30 });
    if (!created.ok) throw new Error(created.error.code);
    const listed = await list.execute({ sessionToken, ip });
    expect(listed.ok && listed.value.tokens.map((t) => [t.id, t.name, t.apps])).toEqual([[created.value.record.id, 'backup', ['wiki']]]);
    const bobs = await signIn(core, 'bob', 'pw');
    expect(await revoke.execute({ sessionToken: bobs.token, fromThisSite: true, ip, id: created.value.record.id })).toEqual({
      ok: false,
      error: { code: 'token_not_found' },
    });
    expect(await list.execute({ sessionToken: bobs.token, ip })).toEqual({ ok: true, value: { tokens: [] } });
    expect(await revoke.execute({ sessionToken, fromThisSite: true, ip, id: created.value.record.id })).toEqual({ ok: true, value: {} });
  });

  it('refuses a cross-site change before anything else, and audits it', async () => {
    const { create, revoke, core, tokens } = setUp();
    const { token: sessionToken } = await signIn(core, 'alice', 'pw');
    expect(await create.execute({ sessionToken, fromThisSite: false, ip, name: 'ci' })).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    expect(await revoke.execute({ sessionToken, fromThisSite: false, ip, id: 'x' })).toEqual({ ok: false, error: { code: 'cross_site_request' } });
    expect(core.audit.events.filter((e) => e.event === 'logout_refused')).toHaveLength(2);
    expect(await tokens.list('alice')).toEqual([]);
  });

  it('answers session_required without a full session (none, a TOTP code owed), and local_account_required to an OAuth session', async () => {
    const { create, list, revoke, core } = setUp();
    core.users.replace([aUser().named('carol').withPassword('pw').withTotp().build()]);
    const pending = await signIn(core, 'carol', 'pw');
    for (const sessionToken of [undefined, 'garbage', pending.token]) {
      expect(await list.execute({ sessionToken, ip })).toEqual({ ok: false, error: { code: 'session_required' } });
      expect(await create.execute({ sessionToken, fromThisSite: true, ip, name: 'ci' })).toEqual({ ok: false, error: { code: 'session_required' } });
      expect(await revoke.execute({ sessionToken, fromThisSite: true, ip, id: 'x' })).toEqual({ ok: false, error: { code: 'session_required' } });
    }
    const now = core.clock.now();
    const oauth = core.sealer.seal({
      id: 'oauth-session',
      username: 'carol',
      name: 'Carol',
      email: 'carol@example.com',
      groups: [],
      provider: 'generic',
      oauth: true,
      totp: false,
      issuedAt: now,
      expiresAt: now + 60_000,
      totpPending: false,
      proven: {},
    });
    expect(await list.execute({ sessionToken: oauth, ip })).toEqual({ ok: false, error: { code: 'local_account_required' } });
    expect(await create.execute({ sessionToken: oauth, fromThisSite: true, ip, name: 'ci' })).toEqual({ ok: false, error: { code: 'local_account_required' } });
  });

  it('answers store_unavailable when the token store is down, and passes the issuer’s refusals on', async () => {
    const { create, list, revoke, tokens, core } = setUp();
    const { token: sessionToken } = await signIn(core, 'alice', 'pw');
    expect(await create.execute({ sessionToken, fromThisSite: true, ip, name: 'ci', apps: ['nope'] })).toEqual({
      ok: false,
      error: { code: 'invalid_fields', fields: ['apps'] },
    });
    jest.spyOn(tokens, 'list').mockRejectedValue(new StateStoreUnavailableError('sqlite'));
    const down = { ok: false, error: { code: 'store_unavailable' } };
    expect(await list.execute({ sessionToken, ip })).toEqual(down);
    expect(await create.execute({ sessionToken, fromThisSite: true, ip, name: 'ci' })).toEqual(down);
    expect(await revoke.execute({ sessionToken, fromThisSite: true, ip, id: 'x' })).toEqual(down);
  });
});

describe('TokenAdministration (the CLI)', () => {
  it('works on any account by username or e-mail, audited as the CLI, and refuses an unknown one', async () => {
    const { admin, core } = setUp();
    const created = await admin.create('ALICE', { name: 'deploy', expiresInDays: 3 });
    if (!created.ok) throw new Error(created.error.code);
    expect(created.value.record.username).toBe('alice');
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'token_created', username: 'alice', by: 'cli' }));
    const listed = await admin.list('alice');
    expect(listed.ok && listed.value.tokens.map((t) => t.name)).toEqual(['deploy']);
    expect(await admin.revoke('alice', 'nope')).toEqual({ ok: false, error: { code: 'token_not_found' } });
    expect(await admin.revoke('alice', created.value.record.id)).toEqual({ ok: true, value: { username: 'alice' } });
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'token_revoked', username: 'alice', by: 'cli' }));
    for (const result of [await admin.create('nobody', { name: 'x' }), await admin.list('nobody'), await admin.revoke('nobody', 'x')])
      expect(result).toEqual({ ok: false, error: { code: 'unknown_account' } });
  });
});
