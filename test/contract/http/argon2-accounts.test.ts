import bcrypt from 'bcrypt';
import { NativePasswordHasher } from '../../../src/adapters/crypto/native-password-hasher';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import { optionalModules } from '../../../src/composition/optional-modules';
import { TOKENS } from '../../../src/composition/tokens';
import { basic, hashOf } from '../../support/credentials';
import { askForwardAuth, forwardedBy } from '../../support/http';
import { startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

/**
 * Issue 34: accounts keep the Argon2 hashes Authelia wrote. An Argon2id entry of USERS and of the
 * users file logs in through the gateway, with a password and with HTTP Basic, and an unknown name
 * costs an Argon2 check, like a known one.
 */
const argon2 = optionalModules.argon2();
// Authelia writes the parameters as m,t,p (node's argon2 as m,p,t): the gateway reads both.
const autheliaForm = (hash: string): string => hash.replace(/m=(\d+),p=(\d+),t=(\d+)/, 'm=$1,t=$3,p=$2');

jest.setTimeout(60_000);

const login = (gw: RunningGateway, username: string, password: string): Promise<Response> =>
  fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
const basicAuth = (gw: RunningGateway, username: string, password: string): Promise<Response> =>
  askForwardAuth(gw, 'traefik', { authorization: basic(username, password), ...forwardedBy('traefik', 'https://app.example.test/') });

describe('Argon2 accounts through the gateway', () => {
  let gw: RunningGateway;
  let aliceHash: string;

  beforeAll(async () => {
    // Authelia's default parameters for alice (USERS) and erin (the file); lighter Argon2i for bob.
    aliceHash = autheliaForm(await argon2.hash('alice-pw', { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 }));
    const erinHash = autheliaForm(await argon2.hash('erin-pw', { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 }));
    const bobHash = await argon2.hash('bob-pw', { type: argon2.argon2i, memoryCost: 8192, timeCost: 2, parallelism: 1 });
    gw = await startGatewayWithUsersFile(
      `users:\n  - username: erin\n    password: "${erinHash}"\n    groups: [staff]\n  - username: bob\n    password: '${bobHash}'\n`,
      { USERS: `alice:${aliceHash},carol:${hashOf('carol-pw')}`, LOGIN_MAX_RETRIES: '0' },
    );
  });
  afterAll(() => gw.close());

  it('logs in an Argon2id account of USERS and of the users file, an Argon2i one, and a bcrypt one beside them', async () => {
    for (const [name, password] of [
      ['alice', 'alice-pw'],
      ['erin', 'erin-pw'],
      ['bob', 'bob-pw'],
      ['carol', 'carol-pw'],
    ]) {
      const res = await login(gw, name, password);
      expect([name, res.status]).toEqual([name, 200]);
      expect(res.headers.get('set-cookie')).toMatch(/portcullis-session=/);
    }
    expect((await login(gw, 'alice', 'alice-PW')).status).toBe(401);
    expect((await login(gw, 'erin', 'alice-pw')).status).toBe(401);
  });

  it('lets HTTP Basic credentials of an Argon2id account through, and refuses a wrong password', async () => {
    const ok = await basicAuth(gw, 'erin', 'erin-pw');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('remote-user')).toBe('erin');
    expect(ok.headers.get('remote-groups')).toBe('staff');
    expect((await basicAuth(gw, 'erin', 'erin-PW')).status).toBe(401);
  });

  it('checks an unknown name against an Argon2id decoy, the costlier kind in use, never a bcrypt one', async () => {
    const verify = jest.spyOn(argon2, 'verify');
    const compare = jest.spyOn(bcrypt, 'compare');
    try {
      const unknown = await login(gw, 'mallory', 'guess');
      const wrong = await login(gw, 'alice', 'guess');
      expect(unknown.status).toBe(wrong.status);
      expect(await unknown.json()).toEqual(await wrong.json());
      // One Argon2 check each: the decoy's for mallory, alice's own hash for alice.
      expect(verify.mock.calls.map((call) => /m=65536,(p=4,t=3|t=3,p=4)/.test(call[0]))).toEqual([true, true]);
      expect(verify.mock.calls[1][0]).toBe(aliceHash);
      expect(compare).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
      compare.mockRestore();
    }
  });
});

describe('HTTP Basic with an Argon2id account: the cache spares the check', () => {
  let gw: RunningGateway;
  const checks = { argon2: 0 };
  const real = new NativePasswordHasher({ argon2: optionalModules.argon2, concurrency: 1 });
  const hasher: PasswordHasher = {
    hash: (p) => real.hash(p),
    verify: (p, h, r) => {
      if (h.startsWith('$argon2')) checks.argon2 += 1;
      return real.verify(p, h, r);
    },
    verifyDecoy: (p, r) => real.verifyDecoy(p, r),
  };

  beforeAll(async () => {
    const hash = autheliaForm(await argon2.hash('dave-pw', { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 }));
    gw = await startGatewayWithUsersFile(`users:\n  - username: dave\n    password: "${hash}"\n`, {}, { [TOKENS.PasswordHasher]: hasher });
  });
  afterAll(() => gw.close());

  it('checks the Argon2id hash once, then answers the same header from the cache', async () => {
    expect((await basicAuth(gw, 'dave', 'dave-pw')).status).toBe(200);
    expect(checks.argon2).toBe(1);
    for (let i = 0; i < 3; i += 1) expect((await basicAuth(gw, 'dave', 'dave-pw')).status).toBe(200);
    expect(checks.argon2).toBe(1);
    // Another password is no cache hit: it is checked, and refused.
    expect((await basicAuth(gw, 'dave', 'dave-PW')).status).toBe(401);
    expect(checks.argon2).toBe(2);
  });
});
