import { readFileSync } from 'node:fs';
import { optionalModules } from '../../src/composition/optional-modules';
import { createServer, type Server, type Socket } from 'node:net';
import { LdapUserStore, type LdapUserStoreSettings } from '../../src/adapters/users/ldap-user-store';
import { UserStoreUnavailableError } from '../../src/application/ports/user-store';
import { DEFAULT_LDAP_GROUP_FILTER } from '../../src/config/ldap';
import { userStoreContract } from '../contract/ports/user-store.contract';
import { FixedClock } from '../support/fakes';
import { capturedLogger, silentLogger } from '../support/loggers';
import { BASE_DN, SERVICE_DN, SERVICE_PASSWORD, Slapd, personDn, type LdapPerson } from '../support/slapd';

let slapd: Slapd;
const open: LdapUserStore[] = [];

beforeAll(async () => {
  slapd = await Slapd.start({ tls: true });
});
afterAll(async () => {
  for (const store of open) await store.close();
  await slapd?.stop();
});

function settings(extra: Partial<LdapUserStoreSettings> = {}): LdapUserStoreSettings {
  return {
    url: slapd.url,
    bindDn: SERVICE_DN,
    bindPassword: SERVICE_PASSWORD,
    baseDn: BASE_DN,
    searchFilter: '(|(uid=%s)(mail=%s))',
    usernameAttribute: 'uid',
    mailAttribute: 'mail',
    nameAttribute: 'displayName',
    groupAttribute: 'memberOf',
    groupBaseDn: `ou=groups,${BASE_DN}`,
    groupFilter: DEFAULT_LDAP_GROUP_FILTER,
    groupNameAttribute: 'cn',
    startTls: false,
    insecure: false,
    nestedGroups: 'off',
    timeoutMs: 2000,
    cacheTtlMs: 0,
    ...extra,
  };
}
function store(extra: Partial<LdapUserStoreSettings> = {}, clock = new FixedClock()): LdapUserStore {
  const s = new LdapUserStore(settings(extra), 'example.test', clock, silentLogger, optionalModules.ldapts());
  open.push(s);
  return s;
}
async function directory(people: readonly LdapPerson[]): Promise<void> {
  await slapd.run();
  await slapd.reset();
  await slapd.addPeople(people);
}

userStoreContract(
  'LdapUserStore (real OpenLDAP)',
  async (env, seeds) => {
    await directory(
      seeds.map((seed, i) => ({
        uid: seed.username,
        password: seed.password,
        cn: seed.name,
        displayName: seed.name,
        mail: seed.email,
        groups: seed.groups,
        totpSecret: seed.totpSecret,
        hashed: i % 2 === 0,
      })),
    );
    const s = store({ totpAttribute: 'description' });
    env.onCleanup(() => s.close());
    return {
      store: s,
      remove: (username) => slapd.removePeople([username]),
      change: async (username, update) => {
        await slapd.setPassword(username, update.password);
        await slapd.setGroups(username, update.groups);
      },
      takeDown: () => slapd.kill(),
    };
  },
  ['remove', 'change', 'takeDown'],
);

// The same contract over StartTLS with the test CA and with the recursive group walk: the options
// change how the directory is reached and how groups are found, never what the port promises.
userStoreContract(
  'LdapUserStore (real OpenLDAP, LDAP_START_TLS with LDAP_CA_FILE, LDAP_NESTED_GROUPS=recursive)',
  async (env, seeds) => {
    await directory(
      seeds.map((seed) => ({
        uid: seed.username,
        password: seed.password,
        cn: seed.name,
        displayName: seed.name,
        mail: seed.email,
        groups: seed.groups,
        totpSecret: seed.totpSecret,
      })),
    );
    const s = store({ totpAttribute: 'description', startTls: true, ca: readFileSync(slapd.caFile, 'utf8'), nestedGroups: 'recursive' });
    env.onCleanup(() => s.close());
    return {
      store: s,
      remove: (username) => slapd.removePeople([username]),
      change: async (username, update) => {
        await slapd.setPassword(username, update.password);
        await slapd.setGroups(username, update.groups);
      },
      takeDown: () => slapd.kill(),
    };
  },
  ['remove', 'change', 'takeDown'],
);

describe('LdapUserStore against a real OpenLDAP', () => {
  const alice: LdapPerson = {
    uid: 'alice',
    password: 'alice-Pa55word',
    cn: 'Alice L',
    displayName: 'Alice Liddell',
    mail: 'Alice@Example.test',
    groups: ['admins'],
    posixGroups: ['staff'],
  };
  const bob: LdapPerson = { uid: 'bob', password: 'bob-plain', cn: 'Robert Roe', hashed: false };
  beforeEach(() => directory([alice, bob]));

  it('maps the entry: username, display name, lower-cased e-mail, and groups from memberOf and a group search', async () => {
    const account = await store().findAccount('alice');
    expect(account).toMatchObject({ username: 'alice', name: 'Alice Liddell', email: 'alice@example.test' });
    expect([...(account?.groups ?? [])].sort()).toEqual(['admins', 'staff']);
  });

  it('falls back to cn for the name and to <username>@<domain> for the e-mail', async () => {
    expect(await store().findAccount('bob')).toMatchObject({ name: 'Robert Roe', email: 'bob@example.test', groups: [] });
  });

  it('refuses an entry whose username carries an invisible character, and leaves out groups with commas or invisible characters, saying so in the log', async () => {
    const { logger, text } = capturedLogger();
    await slapd.addPeople([
      { uid: 'gr\u200beta', password: 'pw-greta', cn: 'Greta' },
      { uid: 'gina', password: 'pw-gina', cn: 'Gina', mail: 'gi na@example.test' },
      { uid: 'hal', password: 'pw-hal', cn: 'Hal', displayName: 'Hal\u200b', groups: ['editors'] },
    ]);
    await slapd.admin(async (c) => {
      await c.add(`cn=ops\\,admins,ou=groups,${BASE_DN}`, { objectClass: 'groupOfNames', cn: 'ops,admins', member: personDn('hal') });
      await c.add(`cn=staff\u200b,ou=groups,${BASE_DN}`, { objectClass: 'groupOfNames', cn: 'staff\u200b', member: personDn('hal') });
    });
    const s = new LdapUserStore(settings(), 'example.test', new FixedClock(), logger, optionalModules.ldapts());
    open.push(s);
    expect(await s.findAccount('gr\u200beta')).toBeNull();
    expect(await s.findAccount('greta')).toBeNull();
    expect(await s.findAccount('gina')).toBeNull();
    expect(await s.findAccount('hal')).toMatchObject({ username: 'hal', name: 'Hal', groups: ['editors'] });
    expect(text()).toContain('ldap entry refused');
    expect(text()).toContain('ldap group left out');
  });

  it("lists the directory's people for the admin console, described as at login (issue 36)", async () => {
    const listed = await store().listAccounts();
    expect(listed.truncated).toBe(false);
    expect(listed.accounts.map((a) => a.username).sort()).toEqual(['alice', 'bob']);
    const a = listed.accounts.find((x) => x.username === 'alice');
    expect(a).toMatchObject({ name: 'Alice Liddell', email: 'alice@example.test' });
    expect([...(a?.groups ?? [])].sort()).toEqual(['admins', 'staff']);
  });

  it('reads the list in pages (several of them) up to its bound, and says when there were more', async () => {
    const more = Array.from({ length: 7 }, (_, i) => ({ uid: `p${i}`, password: 'x-Pa55word', cn: `Person ${i}` }));
    await slapd.addPeople(more);
    const all = await store({ listLimits: { people: 50, pageSize: 2 } }).listAccounts();
    expect(all).toMatchObject({ truncated: false });
    expect(all.accounts).toHaveLength(9);
    const cut = await store({ listLimits: { people: 4, pageSize: 3 } }).listAccounts();
    expect(cut.truncated).toBe(true);
    expect(cut.accounts).toHaveLength(4);
    // A bound of exactly the number of people is not a cut.
    expect(await store({ listLimits: { people: 9, pageSize: 4 } }).listAccounts()).toMatchObject({ truncated: false });
  });

  it('verifies plain-text and {SSHA} passwords by binding as the entry', async () => {
    const s = store();
    const a = await s.findAccount('alice');
    const b = await s.findAccount('bob');
    expect(a !== null && (await s.verifyPassword(a, 'alice-Pa55word'))).toBe(true);
    expect(b !== null && (await s.verifyPassword(b, 'bob-plain'))).toBe(true);
    expect(b !== null && (await s.verifyPassword(b, 'bob-plain '))).toBe(false);
  });

  it('finds nothing for injection attempts, wildcards, backslashes, NUL and parentheses', async () => {
    const s = store();
    for (const login of ['*', 'a*', '*)(uid=*', 'alice)(|(uid=*', 'alice)(uid=*))(|(uid=*', '*))%00', '\\', '\\2a', 'alice\u0000', '(', ')', '()', 'ali*ce']) {
      expect(await s.findAccount(login)).toBeNull();
    }
  });

  it('matches a username that really contains filter characters only when typed exactly', async () => {
    await slapd.addPeople([{ uid: 'we*rd(1)', password: 'pw-weird', cn: 'Weird' }]);
    const s = store({ searchFilter: '(uid=%s)' });
    expect((await s.findAccount('we*rd(1)'))?.username).toBe('we*rd(1)');
    expect(await s.findAccount('we*')).toBeNull();
  });

  it('refuses a login that matches more than one entry', async () => {
    await slapd.addPeople([
      { uid: 'twin1', password: 'pw', cn: 'Twin', mail: 'twins@example.test' },
      { uid: 'twin2', password: 'pw', cn: 'Twin', mail: 'twins@example.test' },
    ]);
    expect(await store().findAccount('twins@example.test')).toBeNull();
  });

  it('reports a wrong service password as unavailable, not as an unknown user', async () => {
    await expect(store({ bindPassword: 'wrong' }).findAccount('alice')).rejects.toBeInstanceOf(UserStoreUnavailableError);
  });

  it('reconnects after the server was killed and restarted', async () => {
    const s = store();
    expect((await s.findAccount('alice'))?.username).toBe('alice');
    await slapd.kill();
    await expect(s.findAccount('alice')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    await slapd.run();
    expect((await s.findAccount('alice'))?.username).toBe('alice');
    const a = await s.findAccount('alice');
    expect(a !== null && (await s.verifyPassword(a, 'alice-Pa55word'))).toBe(true);
  });

  it('reconnects when the server restarted while the connection was idle', async () => {
    const s = store();
    expect(await s.currentAccount('bob')).not.toBeNull();
    await slapd.kill();
    await slapd.run();
    expect((await s.findAccount('bob'))?.username).toBe('bob');
  });

  it('answers session checks from its cache, refreshing stale answers in the background', async () => {
    const clock = new FixedClock();
    const s = store({ cacheTtlMs: 60_000 }, clock);
    expect(await s.currentAccount('bob')).not.toBeNull();
    await slapd.removePeople(['bob']);
    expect(await s.currentAccount('bob')).not.toBeNull();
    clock.advance(60_001);
    // The stale answer stands once more while the directory is asked; the next check has the news.
    expect(await s.currentAccount('bob')).not.toBeNull();
    await waitUntil(async () => (await s.currentAccount('bob')) === null);
    expect(await s.currentAccount('bob')).toBeNull();
  });

  it('keeps answering session checks from its cache while the directory is down', async () => {
    const clock = new FixedClock();
    const s = store({ cacheTtlMs: 1000 }, clock);
    expect(await s.currentAccount('alice')).not.toBeNull();
    await slapd.kill();
    clock.advance(5_000);
    expect(await s.currentAccount('alice')).not.toBeNull();
    clock.advance(60_000);
    expect(await s.currentAccount('alice')).not.toBeNull();
    await expect(s.currentAccount('never-seen')).rejects.toBeInstanceOf(UserStoreUnavailableError);
  });
});

describe('LdapUserStore over ldaps:// with a self-signed certificate', () => {
  beforeEach(() => directory([{ uid: 'tess', password: 'tess-Pa55word', cn: 'Tess' }]));

  it('refuses the unverifiable certificate by default: the directory counts as unavailable', async () => {
    await expect(store({ url: slapd.ldapsUrl }).findAccount('tess')).rejects.toBeInstanceOf(UserStoreUnavailableError);
  });

  it('accepts it with LDAP_INSECURE, and logs in over TLS', async () => {
    const s = store({ url: slapd.ldapsUrl, insecure: true });
    const tess = await s.findAccount('tess');
    expect(tess?.username).toBe('tess');
    expect(tess !== null && (await s.verifyPassword(tess, 'tess-Pa55word'))).toBe(true);
  });
});

describe('LdapUserStore against a server that accepts connections but never answers', () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let port = 0;
  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('gives up within its timeout with UserStoreUnavailableError', async () => {
    const s = store({ url: `ldap://127.0.0.1:${port}`, timeoutMs: 500 });
    const started = Date.now();
    await expect(s.findAccount('alice')).rejects.toBeInstanceOf(UserStoreUnavailableError);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

async function waitUntil(probe: () => Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > until) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
