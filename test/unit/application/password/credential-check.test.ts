import type { Account } from '../../../../src/domain/account';
import { lockPolicy } from '../../../../src/domain/login-failures';
import { PasswordHasherBusyError } from '../../../../src/application/ports/password-hasher';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import type { CredentialFingerprints } from '../../../../src/application/ports/credential-fingerprints';
import { CredentialCheck } from '../../../../src/application/password/credential-check';
import { LoginGuard } from '../../../../src/application/password/login-guard';
import type { GatewaySettings } from '../../../../src/application/settings';
import { protectedDomainOf } from '../../../../src/domain/cookie-domain';
import { registrableDomainOf } from '../../../support/public-suffixes';
import { InMemoryLoginAttempts } from '../../../../src/adapters/state/memory/in-memory-login-attempts';
import { InMemoryUsedTotpSteps } from '../../../../src/adapters/state/memory/in-memory-used-totp-steps';
import { aUser } from '../../../support/builders';
import { FakePasswordHasher, FakeTotpVerifier, FakeUserStore, FixedClock, RecordingAuditLog } from '../../../support/fakes';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DP';
const ip = '198.51.100.7';

/** Readable fingerprints: what they must tell apart is visible in the test. */
const fingerprints: CredentialFingerprints = { of: (account) => `fp(${account.credentialVersion},${account.totpSecret ?? ''})` };

/** The service over fakes; the lock allows three failures per account, thirty per address. */
function setup(accounts: Account[]) {
  const clock = new FixedClock();
  const hasher = new FakePasswordHasher();
  const users = new FakeUserStore(accounts, hasher);
  const audit = new RecordingAuditLog();
  const totp = new FakeTotpVerifier();
  const usedSteps = new InMemoryUsedTotpSteps(clock);
  const settings: GatewaySettings = {
    sessionLifetimeMs: 3_600_000,
    lock: lockPolicy(3, 60),
    protectedDomain: protectedDomainOf('auth.example.com', registrableDomainOf),
    basicCacheTtlMs: 60_000,
  };
  const guard = new LoginGuard(new InMemoryLoginAttempts(1000), clock, settings, audit);
  const check = new CredentialCheck(users, guard, totp, usedSteps, audit, fingerprints);
  const failures = () => audit.events.filter((e) => e.event === 'login_failed');
  const totpGuess = (code: string, credential = fingerprints.of(tom)) => ({ username: 'tom', credential, code, ip, at: clock.now() });
  return { clock, hasher, users, audit, totp, usedSteps, guard, check, failures, totpGuess };
}

const alice = aUser().named('alice').withPassword('pw').build();
const tom = aUser().named('tom').withPassword('pw').withTotp(SECRET).build();

describe('CredentialCheck, a password from the login form', () => {
  it('proves the account for its right password, with the fingerprint of its credential', async () => {
    const { check } = setup([alice]);
    expect(await check.password({ login: 'alice', password: 'pw', ip })).toEqual({ ok: true, value: { account: alice, credential: 'fp(fake:pw,)' } });
  });

  it('answers an unknown name and a wrong password alike, after the same hashing work', async () => {
    const { check, hasher } = setup([alice]);
    const unknown = await check.password({ login: 'mallory', password: 'pw', ip });
    const wrong = await check.password({ login: 'alice', password: 'nope', ip });
    expect(unknown).toEqual({ ok: false, error: { code: 'invalid_credentials' } });
    expect(wrong).toEqual(unknown);
    expect(hasher.decoys).toBe(1);
    expect(hasher.verifications).toBe(2);
  });

  it("hands the requester's address block to the hasher, for the decoy as for a real check", async () => {
    const { check, hasher } = setup([alice]);
    await check.password({ login: 'alice', password: 'pw', ip: '2001:db8:1:2::7' });
    await check.password({ login: 'mallory', password: 'pw', ip: '2001:db8:1:2::8' });
    expect(hasher.requesters).toEqual(['2001:db8:1:2::/64', '2001:db8:1:2::/64']);
  });

  it('audits a failure under the name as typed (trimmed), with its reason and request id, never the password', async () => {
    const { check, audit } = setup([alice]);
    await check.password({ login: ' ALICE@example.com ', password: 'hunter2', ip, requestId: 'r1' });
    expect(audit.events).toEqual([
      { event: 'login_failed', login: 'ALICE@example.com', method: 'password', ip, reason: 'invalid_credentials', requestId: 'r1' },
    ]);
    expect(JSON.stringify(audit.events)).not.toMatch(/hunter2/);
  });

  it('leaves auditing a success to its caller', async () => {
    const { check, audit } = setup([alice]);
    await check.password({ login: 'alice', password: 'pw', ip });
    expect(audit.events).toEqual([]);
  });

  it('counts every name of an account against one lock, and then refuses even the right password unchecked', async () => {
    const { check, hasher } = setup([alice]);
    for (const login of ['alice', 'alice@example.com', 'ALICE']) await check.password({ login, password: 'bad', ip });
    const checkedBefore = hasher.verifications;
    expect(await check.password({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'account_locked', retryAfter: 60 } });
    expect(hasher.verifications).toBe(checkedBefore);
  });

  it('clears the account of its earlier failures with the right password', async () => {
    const { check } = setup([alice]);
    for (let i = 0; i < 2; i += 1) await check.password({ login: 'alice', password: 'bad', ip });
    await check.password({ login: 'alice', password: 'pw', ip });
    for (let i = 0; i < 2; i += 1) await check.password({ login: 'alice', password: 'bad', ip });
    expect((await check.password({ login: 'alice', password: 'pw', ip })).ok).toBe(true);
  });

  it('lets an account with a second factor through on its password, clearing its failures (the TOTP step follows)', async () => {
    const { check } = setup([tom]);
    for (let i = 0; i < 2; i += 1) await check.password({ login: 'tom', password: 'bad', ip });
    expect(await check.password({ login: 'tom', password: 'pw', ip })).toMatchObject({ ok: true, value: { account: tom } });
    for (let i = 0; i < 2; i += 1) await check.password({ login: 'tom', password: 'bad', ip });
    expect((await check.password({ login: 'tom', password: 'pw', ip })).ok).toBe(true);
  });

  it('answers store_unavailable when the hasher is busy, and gives the unchecked guess back', async () => {
    const { check, hasher, guard } = setup([alice]);
    hasher.verify = async () => {
      throw new PasswordHasherBusyError();
    };
    for (let i = 0; i < 5; i += 1)
      expect(await check.password({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    expect(await guard.retryAfter('alice', ip)).toBe(0);
  });

  it('answers store_unavailable when the user store is down', async () => {
    const { check, users } = setup([alice]);
    users.down = true;
    expect(await check.password({ login: 'alice', password: 'pw', ip })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('lets an unexpected error through, with the guess given back', async () => {
    const { check, hasher, guard } = setup([alice]);
    hasher.verify = async () => {
      throw new TypeError('bug');
    };
    for (let i = 0; i < 3; i += 1) await expect(check.password({ login: 'alice', password: 'pw', ip })).rejects.toThrow('bug');
    expect(await guard.retryAfter('alice', ip)).toBe(0);
  });
});

describe('CredentialCheck, a password from HTTP Basic', () => {
  it('proves the account for its right password', async () => {
    const { check } = setup([alice]);
    expect(await check.basicPassword({ login: 'alice', password: 'pw', ip }, '')).toEqual({ ok: true, value: { account: alice, credential: 'fp(fake:pw,)' } });
  });

  it('refuses the right password of an account with a second factor, neither counting nor clearing a failure', async () => {
    const { check, failures } = setup([tom]);
    for (let i = 0; i < 2; i += 1) await check.basicPassword({ login: 'tom', password: 'bad', ip }, '');
    for (let i = 0; i < 5; i += 1)
      expect(await check.basicPassword({ login: 'tom', password: 'pw', ip }, '')).toEqual({ ok: false, error: { code: 'second_factor_required' } });
    expect(failures()).toHaveLength(2);
    // Still two failures on the account: the third wrong password locks it.
    await check.basicPassword({ login: 'tom', password: 'bad', ip }, '');
    expect(await check.basicPassword({ login: 'tom', password: 'pw', ip }, '')).toMatchObject({ ok: false, error: { code: 'account_locked' } });
  });

  it("audits a failure under the account's own name, whatever spelling was typed", async () => {
    const { check, audit } = setup([alice]);
    await check.basicPassword({ login: ' ALICE@example.com ', password: 'bad', ip, requestId: 'r2' }, '');
    expect(audit.events).toEqual([{ event: 'login_failed', login: 'alice', method: 'basic', ip, reason: 'invalid_credentials', requestId: 'r2' }]);
  });

  it('names the lock a failure has just locked, and no lock before that', async () => {
    const { check } = setup([alice]);
    const results = [];
    for (let i = 0; i < 3; i += 1) results.push(await check.basicPassword({ login: 'ALICE', password: 'bad', ip }, ''));
    expect(results.map((r) => !r.ok && r.error)).toEqual([
      { code: 'invalid_credentials', locked: null },
      { code: 'invalid_credentials', locked: null },
      { code: 'invalid_credentials', locked: 'alice' },
    ]);
  });

  it('shares one reservation and one verification between identical headers checked at once', async () => {
    const { check, hasher, failures } = setup([alice]);
    const all = await Promise.all(Array.from({ length: 5 }, () => check.basicPassword({ login: 'alice', password: 'bad', ip }, 'header-1')));
    expect(all.every((r) => !r.ok && r.error.code === 'invalid_credentials')).toBe(true);
    expect(hasher.verifications).toBe(1);
    expect(failures()).toHaveLength(1);
  });

  it('gives each caller of a shared check the account it found itself', async () => {
    const { check, users, hasher } = setup([alice]);
    const first = check.basicPassword({ login: 'alice', password: 'pw', ip }, 'header-1');
    const renamed = { ...alice, name: 'Alice Renamed' };
    users.replace([renamed]);
    const second = check.basicPassword({ login: 'alice', password: 'pw', ip }, 'header-1');
    const [a, b] = await Promise.all([first, second]);
    expect(hasher.verifications).toBe(1);
    expect(a.ok && a.value.account).toBe(alice);
    expect(b.ok && b.value.account).toBe(renamed);
  });

  it('checks afresh a header whose account changed its password while a check was under way', async () => {
    const { check, users, hasher } = setup([alice]);
    const before = check.basicPassword({ login: 'alice', password: 'pw', ip }, 'header-1');
    users.replace([aUser().named('alice').withPassword('new').build()]);
    const after = check.basicPassword({ login: 'alice', password: 'pw', ip }, 'header-1');
    await before;
    expect(await after).toEqual({ ok: false, error: { code: 'invalid_credentials', locked: null } });
    expect(hasher.verifications).toBe(2);
  });

  it('checks each guess on its own without a share key', async () => {
    const { check, hasher } = setup([alice]);
    await Promise.all(Array.from({ length: 3 }, () => check.basicPassword({ login: 'alice', password: 'pw', ip }, '')));
    expect(hasher.verifications).toBe(3);
  });

  it('answers store_unavailable to every caller of a shared check when the store is down', async () => {
    const { check, hasher } = setup([alice]);
    hasher.verify = async () => {
      throw new PasswordHasherBusyError();
    };
    const all = await Promise.all(Array.from({ length: 3 }, () => check.basicPassword({ login: 'alice', password: 'pw', ip }, 'header-1')));
    expect(all).toEqual(Array(3).fill({ ok: false, error: { code: 'store_unavailable' } }));
  });
});

describe('CredentialCheck, a TOTP code', () => {
  const codeNow = (s: ReturnType<typeof setup>, offsetSteps = 0) => FakeTotpVerifier.codeAt(SECRET, s.clock.now(), offsetSteps);

  it('proves the account for the current code, with the fingerprint of its credential', async () => {
    const s = setup([tom]);
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: true, value: { account: tom, credential: `fp(fake:pw,${SECRET})` } });
  });

  it('refuses a wrong code, audited without the code and counted against the account', async () => {
    const s = setup([tom]);
    const wrong = FakeTotpVerifier.codeAt(SECRET, s.clock.now(), 5);
    expect(await s.check.totpCode({ ...s.totpGuess(wrong), requestId: 'r3' })).toEqual({ ok: false, error: { code: 'invalid_code' } });
    expect(s.audit.events).toEqual([{ event: 'login_failed', login: 'tom', method: 'totp', ip, reason: 'invalid_code', requestId: 'r3' }]);
    expect(JSON.stringify(s.audit.events)).not.toContain(wrong);
    for (let i = 0; i < 2; i += 1) await s.check.totpCode(s.totpGuess(wrong));
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toMatchObject({ ok: false, error: { code: 'account_locked' } });
  });

  it('refuses a code used once already, counting the replay as a failure', async () => {
    const s = setup([tom]);
    await s.check.totpCode(s.totpGuess(codeNow(s)));
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: false, error: { code: 'totp_replayed' } });
    expect(s.failures()).toEqual([expect.objectContaining({ login: 'tom', method: 'totp', reason: 'totp_replayed' })]);
  });

  it('counts codes against the same lock as passwords', async () => {
    const s = setup([tom]);
    await s.check.password({ login: 'tom', password: 'bad', ip });
    await s.check.basicPassword({ login: 'tom', password: 'bad', ip }, '');
    await s.check.totpCode(s.totpGuess('000000'));
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toMatchObject({ ok: false, error: { code: 'account_locked' } });
    expect(await s.check.password({ login: 'tom', password: 'pw', ip })).toMatchObject({ ok: false, error: { code: 'account_locked' } });
  });

  it('refuses a code for a locked account before looking at it', async () => {
    const s = setup([tom]);
    for (let i = 0; i < 3; i += 1) await s.check.password({ login: 'tom', password: 'bad', ip });
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: false, error: { code: 'account_locked', retryAfter: 60 } });
    expect(s.totp.verifications).toBe(0);
  });

  it('answers not_pending, unchecked and uncounted, when the credential changed since the password step', async () => {
    const s = setup([tom]);
    for (let i = 0; i < 5; i += 1) expect(await s.check.totpCode(s.totpGuess(codeNow(s), 'fp(old,)'))).toEqual({ ok: false, error: { code: 'not_pending' } });
    expect(s.totp.verifications).toBe(0);
    expect(await s.guard.retryAfter('tom', ip)).toBe(0);
  });

  it('answers not_pending when the account is gone or has lost its second factor', async () => {
    const s = setup([tom]);
    s.users.replace([aUser().named('tom').withPassword('pw').build()]);
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: false, error: { code: 'not_pending' } });
    s.users.replace([]);
    expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: false, error: { code: 'not_pending' } });
  });

  it('answers store_unavailable when the user store is down, giving the unchecked code back', async () => {
    const s = setup([tom]);
    s.users.down = true;
    for (let i = 0; i < 5; i += 1) expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    expect(await s.guard.retryAfter('tom', ip)).toBe(0);
  });

  it('keeps a valid code counted when its step cannot be claimed: it was checked', async () => {
    const s = setup([tom]);
    s.usedSteps.claim = async () => {
      throw new StateStoreUnavailableError('fake');
    };
    for (let i = 0; i < 3; i += 1) expect(await s.check.totpCode(s.totpGuess(codeNow(s)))).toEqual({ ok: false, error: { code: 'store_unavailable' } });
    expect(await s.guard.retryAfter('tom', ip)).toBe(60);
  });
});
