import { BcryptPasswordHasher } from '../../../src/adapters/crypto/bcrypt-password-hasher';
import type { PasswordHasher } from '../../../src/application/ports/password-hasher';
import { TOKENS } from '../../../src/composition/tokens';
import { basic, hashOf } from '../../support/credentials';
import { askForwardAuth, forwardedBy } from '../../support/http';
import { startGatewayWithUsersFile, type RunningGateway } from '../../support/server';

/**
 * Issue 16: a passkey-only account of the users file has no password. Nothing typed in a password
 * field or an Authorization header may log it in, and the refusal must read exactly like a wrong
 * password (no account enumeration).
 */
describe('PASSKEY_ONLY accounts of the users file: no password way in', () => {
  let gw: RunningGateway;
  // Counts the bcrypt work each refusal costs: a passkey-only account must cost what a wrong password costs.
  const real = new BcryptPasswordHasher(4);
  const work = { checks: 0 };
  const hasher: PasswordHasher = {
    hash: (p) => real.hash(p),
    verify: (p, h, r) => {
      // bcrypt does no work for something that is not a bcrypt hash: that answer would come back early.
      if (/^\$2[aby]\$\d{2}\$/.test(h)) work.checks += 1;
      return real.verify(p, h, r);
    },
    verifyDecoy: (p, r) => {
      work.checks += 1;
      return real.verifyDecoy(p, r);
    },
  };

  beforeAll(async () => {
    gw = await startGatewayWithUsersFile(
      `users:\n  - username: alice\n    password: "${hashOf('alice-pw')}"\n  - username: dora\n    passkey_only: true\n  - username: erin\n    password: "${hashOf('erin-pw')}"\n`,
      { LOGIN_MAX_RETRIES: '0' },
      { [TOKENS.PasswordHasher]: hasher },
    );
  });
  afterAll(() => gw.close());

  const login = (username: string, password: string): Promise<Response> =>
    fetch(`${gw.url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });

  it('answers a password login for a passkey-only account exactly as a wrong password (same status and body)', async () => {
    const wrong = await login('alice', 'not-it');
    const wrongBody = await wrong.json();
    for (const password of ['x', 'passkey-only', '$2b$04$' + 'a'.repeat(53)]) {
      const before = work.checks;
      const res = await login('dora', password);
      expect(work.checks).toBe(before + 1);
      expect(res.status).toBe(wrong.status);
      expect(await res.json()).toEqual(wrongBody);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });

  it('refuses HTTP Basic for a passkey-only account exactly as a wrong password', async () => {
    const wrong = await askForwardAuth(gw, 'traefik', { authorization: basic('alice', 'not-it'), ...forwardedBy('traefik', 'https://app.example.test/') });
    const wrongBody = await wrong.text();
    for (const password of ['', 'x', 'passkey-only']) {
      const before = work.checks;
      const res = await askForwardAuth(gw, 'traefik', { authorization: basic('dora', password), ...forwardedBy('traefik', 'https://app.example.test/') });
      expect(res.status).toBe(wrong.status);
      expect(await res.text()).toBe(wrongBody);
      expect(res.headers.get('remote-user')).toBeNull();
      expect(work.checks).toBe(before + 1);
    }
  });

  it('still logs in the password accounts of the same file', async () => {
    expect((await login('erin', 'erin-pw')).status).toBe(200);
  });
});
