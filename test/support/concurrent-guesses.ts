import type { LoginAttempts } from '../../src/application/password/login-attempts';
import { lockPolicy } from '../../src/domain/login-failures';
import { aUser, basicAuth } from './builders';
import { makeCore, signIn, type Core } from './core';

const MAX_RETRIES = 5;
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';

/**
 * The lock against a flood of simultaneous guesses, through the use cases: however many guesses
 * arrive at once, at most LOGIN_MAX_RETRIES of them are ever checked per window. Shared so that
 * the same attacks run against the in-memory lock state and against Redis.
 */
export function concurrentGuessesSuite(name: string, makeAttempts: () => Promise<LoginAttempts>): void {
  describe(`concurrent guesses against one account (${name})`, () => {
    const make = async (): Promise<Core> =>
      makeCore([aUser().named('alice').withPassword('pw').build(), aUser().named('tom').withPassword('pw').withTotp(SECRET).build()], {
        attempts: await makeAttempts(),
        settings: { lock: lockPolicy(MAX_RETRIES, 60), basicCacheTtlMs: 60_000 },
      });

    it('checks at most LOGIN_MAX_RETRIES of 60 simultaneous wrong passwords', async () => {
      const core = await make();
      const results = await Promise.all(
        Array.from({ length: 60 }, (_, i) => core.login.execute({ login: 'alice', password: `guess-${i}`, ip: `203.0.113.${i % 200}` })),
      );
      expect(core.hasher.verifications).toBeLessThanOrEqual(MAX_RETRIES);
      expect(results.filter((r) => !r.ok && r.error.code === 'invalid_credentials').length).toBe(core.hasher.verifications);
      expect(results.filter((r) => !r.ok && r.error.code === 'account_locked')).toHaveLength(60 - core.hasher.verifications);
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip: '192.0.2.1' })).toMatchObject({ ok: false, error: { code: 'account_locked' } });
    });

    it('checks at most LOGIN_MAX_RETRIES of 60 simultaneous wrong HTTP Basic passwords', async () => {
      const core = await make();
      const forwarded = { proxy: 'traefik' as const, proto: 'https', host: 'app.example.com', uri: '/' };
      await Promise.all(
        Array.from({ length: 60 }, (_, i) => core.authorize.execute({ forwarded, credentials: basicAuth('alice', `guess-${i}`), ip: `203.0.113.${i % 200}` })),
      );
      expect(core.hasher.verifications).toBeLessThanOrEqual(MAX_RETRIES);
    });

    it('checks at most LOGIN_MAX_RETRIES of 1000 simultaneous TOTP codes', async () => {
      const core = await make();
      const { token } = await signIn(core, 'tom', 'pw');
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) => core.verifyTotp.execute({ sessionToken: token, code: String(i).padStart(6, '0'), ip: '198.51.100.7' })),
      );
      expect(core.totp.verifications).toBeLessThanOrEqual(MAX_RETRIES);
      expect(results.filter((r) => r.ok).length).toBeLessThanOrEqual(1);
    });

    it('checks at most ten times LOGIN_MAX_RETRIES simultaneous guesses at invented names from one IPv6 /64', async () => {
      const core = await make();
      await Promise.all(
        Array.from({ length: 120 }, (_, i) => core.login.execute({ login: `nobody-${i}`, password: 'x', ip: `2001:db8:1:2::${(i + 1).toString(16)}` })),
      );
      expect(core.hasher.verifications).toBeLessThanOrEqual(10 * MAX_RETRIES);
      expect(await core.login.execute({ login: 'alice', password: 'pw', ip: '2001:db8:1:2::ffff' })).toMatchObject({
        ok: false,
        error: { code: 'account_locked' },
      });
      expect((await core.login.execute({ login: 'alice', password: 'pw', ip: '198.51.100.7' })).ok).toBe(true);
    });

    it('lets the owner in among simultaneous guesses, and that success clears the account', async () => {
      const core = await make();
      const results = await Promise.all([
        core.login.execute({ login: 'alice', password: 'pw', ip: '198.51.100.7' }),
        ...Array.from({ length: MAX_RETRIES - 2 }, (_, i) => core.login.execute({ login: 'alice', password: `guess-${i}`, ip: '198.51.100.7' })),
      ]);
      expect(results[0].ok).toBe(true);
      // The success cleared the account: a fresh run of LOGIN_MAX_RETRIES guesses is checked in full.
      for (let i = 0; i < MAX_RETRIES - 1; i += 1) {
        expect(await core.login.execute({ login: 'alice', password: 'bad', ip: '198.51.100.7' })).toEqual({
          ok: false,
          error: { code: 'invalid_credentials' },
        });
      }
    });
  });
}
