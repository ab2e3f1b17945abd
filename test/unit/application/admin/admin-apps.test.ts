import type { AccountDirectory } from '../../../../src/application/admin/account-directory';
import type { AdminGate } from '../../../../src/application/admin/admin-gate';
import { ListAdminTokensUseCase, RevokeAdminTokenUseCase } from '../../../../src/application/admin/admin-tokens';
import { describeAccessRules } from '../../../../src/application/admin/list-admin-apps';
import { describeOidcClient } from '../../../../src/application/admin/list-oidc-clients';
import type { AccessTokens } from '../../../../src/application/tokens/access-tokens';
import { TokenRevocation } from '../../../../src/application/tokens/token-revocation';
import { InMemoryRevokedSessions } from '../../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { compileAccessRules } from '../../../../src/domain/access-rules';
import type { AccessTokenRecord } from '../../../../src/domain/access-token';
import type { OidcClient } from '../../../../src/domain/oidc-client';
import { err, ok } from '../../../../src/domain/result';
import { FixedClock, RecordingAuditLog } from '../../../support/fakes';

describe('describeAccessRules', () => {
  const compiled = compileAccessRules(
    {
      apps: {
        wiki: {
          domain: ['wiki.example.test', '*.wiki.example.test'],
          response: { headers: { 'X-Api-Key': 'header-value-kept-on-the-server' }, basicauth: { username: 'svc', password_file: '/run/pw' } },
        },
      },
    },
    () => 'basic-password-kept-on-the-server',
  );
  if (!compiled.ok) throw new Error(compiled.error.join('; '));

  it('names response headers without their values and says basicauth is set without its credentials', () => {
    const view = describeAccessRules(compiled.value);
    expect(view.apps[0]).toMatchObject({ name: 'wiki', hosts: ['wiki.example.test', '*.wiki.example.test'], responseHeaders: ['x-api-key'], basicauth: true });
    const text = JSON.stringify(view);
    expect(text).not.toContain('header-value-kept-on-the-server');
    expect(text).not.toContain('basic-password-kept-on-the-server');
    expect(text).not.toContain(Buffer.from('svc:basic-password-kept-on-the-server').toString('base64'));
  });

  it('describes the hosts no application claims as the fallback, with no name', () => {
    expect(describeAccessRules(compiled.value).fallback).toMatchObject({ name: null, hosts: [], basicauth: false });
  });
});

describe('describeOidcClient', () => {
  const client: OidcClient = {
    clientId: 'wiki',
    name: 'Wiki',
    secret: 'client-secret-kept-on-the-server-0123456789',
    tokenEndpointAuthMethod: 'client_secret_post',
    redirectUris: ['https://wiki.example.test/cb'],
    postLogoutRedirectUris: [],
    allowedUsers: [],
    allowedGroups: ['staff'],
    scopes: ['openid', 'email'],
  };

  it('never carries the secret, and tells a public client by its method none', () => {
    const view = describeOidcClient(client);
    expect(JSON.stringify(view)).not.toContain(client.secret);
    expect(view).toMatchObject({ type: 'confidential', tokenEndpointAuthMethod: 'client_secret_post' });
    expect(describeOidcClient({ ...client, secret: null })).toMatchObject({ type: 'public', tokenEndpointAuthMethod: 'none' });
  });
});

class FakeAccessTokens implements AccessTokens {
  constructor(public records: AccessTokenRecord[]) {}
  add(record: AccessTokenRecord): Promise<void> {
    this.records.push(record);
    return Promise.resolve();
  }
  findByHash(hash: string): AccessTokenRecord | null {
    return this.records.find((r) => r.hash === hash) ?? null;
  }
  list(username: string): Promise<AccessTokenRecord[]> {
    return Promise.resolve(this.records.filter((r) => r.username === username));
  }
  revoke(username: string, id: string, at: number): Promise<boolean> {
    const i = this.records.findIndex((r) => r.username === username && r.id === id && r.revokedAt === null);
    if (i === -1) return Promise.resolve(false);
    this.records[i] = { ...this.records[i], revokedAt: at };
    return Promise.resolve(true);
  }
  touch(): Promise<void> {
    return Promise.resolve();
  }
  prune(): Promise<void> {
    return Promise.resolve();
  }
}

describe('the admin token use cases', () => {
  const clock = new FixedClock();
  const now = clock.now();
  const record = (id: string, username: string, extra: Partial<AccessTokenRecord> = {}): AccessTokenRecord => ({
    id,
    hash: `hash-${id}`,
    username,
    name: id,
    apps: null,
    createdAt: now - 1000,
    expiresAt: now + 60_000,
    lastUsedAt: null,
    revokedAt: null,
    ...extra,
  });
  const directory: AccountDirectory = {
    list: () => Promise.resolve([{ account: { username: 'tom' }, source: 'file' } as never, { account: { username: 'ann' }, source: 'file' } as never]),
    listing: () => Promise.reject(new Error('not used')),
  };
  const admitting = { admit: () => Promise.resolve(ok({ identity: { username: 'root' } })) } as unknown as AdminGate;
  const refusing = { admit: () => Promise.resolve(err({ code: 'admin_required' })) } as unknown as AdminGate;

  function setUp(gate = admitting) {
    const tokens = new FakeAccessTokens([
      record('t1', 'tom'),
      record('t2', 'ann'),
      record('old', 'tom', { expiresAt: now - 1 }),
      record('gone', 'ann', { revokedAt: now - 5 }),
    ]);
    const revoked = new InMemoryRevokedSessions(clock);
    const audit = new RecordingAuditLog();
    const revocation = new TokenRevocation(tokens, revoked, clock, audit);
    return {
      tokens,
      revoked,
      audit,
      list: new ListAdminTokensUseCase(gate, directory, tokens, clock),
      revoke: new RevokeAdminTokenUseCase(gate, directory, tokens, revocation, clock, audit),
    };
  }
  const request = { sessionToken: 'c', ip: '192.0.2.1' };

  it('lists only live tokens, of everyone or of one person', async () => {
    const { list } = setUp();
    const all = await list.execute({ ...request, username: null });
    expect(all.ok && all.value.map((t) => t.id).sort()).toEqual(['t1', 't2']);
    const tom = await list.execute({ ...request, username: 'tom' });
    expect(tom.ok && tom.value.map((t) => t.id)).toEqual(['t1']);
  });

  it('revokes anyone’s live token, audited by admin with the administrator', async () => {
    const { revoke, tokens, audit } = setUp();
    expect(await revoke.execute({ ...request, fromThisSite: true, id: 't2' })).toEqual({ ok: true, value: { username: 'ann' } });
    expect(tokens.records.find((r) => r.id === 't2')?.revokedAt).toBe(now);
    expect(audit.events).toEqual([expect.objectContaining({ event: 'token_revoked', username: 'ann', id: 't2', by: 'admin', admin: 'root' })]);
  });

  it('answers token_not_found for an unknown, expired or revoked id', async () => {
    const { revoke } = setUp();
    for (const id of ['nope', 'old', 'gone']) expect(await revoke.execute({ ...request, fromThisSite: true, id })).toEqual(err({ code: 'token_not_found' }));
  });

  it('refuses a cross-site request and a non-administrator, ending nothing', async () => {
    const crossSite = setUp();
    expect(await crossSite.revoke.execute({ ...request, fromThisSite: false, id: 't1' })).toEqual(err({ code: 'cross_site_request' }));
    const nonAdmin = setUp(refusing);
    expect(await nonAdmin.revoke.execute({ ...request, fromThisSite: true, id: 't1' })).toEqual(err({ code: 'admin_required' }));
    expect(await nonAdmin.list.execute({ ...request, username: null })).toEqual(err({ code: 'admin_required' }));
    for (const s of [crossSite, nonAdmin]) expect(s.tokens.records.every((r) => r.id !== 't1' || r.revokedAt === null)).toBe(true);
  });
});
