import { isPending } from '../../../../src/application/ports/awaitable';
import { JwtAuthenticator, VERIFIED_MAX, VERIFIED_TTL_MS } from '../../../../src/application/tokens/jwt-authenticator';
import type { JwtVerification, JwtVerifier } from '../../../../src/application/tokens/jwt-verifier';
import { FixedClock, RecordingAuditLog } from '../../../support/fakes';

const HOUR = 3600_000;

/** Answers what it is told, later (as a verifier fetching keys would), and counts what it was asked. */
class FakeVerifier implements JwtVerifier {
  calls = 0;
  constructor(public answer: (jwt: string) => JwtVerification) {}
  verify(jwt: string): Promise<JwtVerification> {
    this.calls += 1;
    return Promise.resolve(this.answer(jwt));
  }
}

function setUp(answer: (jwt: string) => JwtVerification, clock = new FixedClock()) {
  const audit = new RecordingAuditLog();
  const verifier = new FakeVerifier(answer);
  return { clock, audit, verifier, authenticator: new JwtAuthenticator({ verifier, clock, audit }) };
}

const passing =
  (clock: FixedClock, lifetime = HOUR) =>
  (): JwtVerification => ({ ok: true, issuerId: 'ci', subject: 'repo:x', groups: ['deploy'], expiresAt: clock.now() + lifetime });

describe('JwtAuthenticator', () => {
  it('speaks for <issuer id>:<subject> with its groups, a frozen identity, audited once as a jwt login', async () => {
    const clock = new FixedClock();
    const { authenticator, audit } = setUp(passing(clock), clock);
    const auth = await authenticator.authenticate('a.b.c', '192.0.2.1', 'r1');
    expect(auth).toEqual({
      kind: 'jwt',
      identity: { username: 'ci:repo:x', name: 'ci:repo:x', email: '', groups: ['deploy'], provider: 'jwt', oauth: false, totp: false },
    });
    expect(auth.kind === 'jwt' && Object.isFrozen(auth.identity) && Object.isFrozen(auth.identity.groups)).toBe(true);
    expect(auth.kind === 'jwt' && auth.identity.token).toBeUndefined();
    expect(audit.events).toEqual([{ event: 'login_succeeded', username: 'ci:repo:x', method: 'jwt', ip: '192.0.2.1', requestId: 'r1' }]);
  });

  it('answers a token it verified at once, without a promise, the same object, until its exp', async () => {
    const { authenticator, audit, verifier, clock } = setUp(() => ({ ok: false, reason: 'signature' }));
    verifier.answer = passing(clock, 2 * 60_000);
    const first = await authenticator.authenticate('a.b.c', '192.0.2.1');
    const again = authenticator.authenticate('a.b.c', '192.0.2.1');
    expect(isPending(again)).toBe(false);
    expect(again).toBe(first);
    expect(verifier.calls).toBe(1);
    expect(audit.events).toHaveLength(1);
    clock.advance(2 * 60_000);
    verifier.answer = () => ({ ok: false, reason: 'expired', issuerId: 'ci' });
    expect(await authenticator.authenticate('a.b.c', '192.0.2.1')).toEqual({ kind: 'invalid_token' });
    expect(verifier.calls).toBe(2);
  });

  it('checks a long-lived token again after a few minutes, so a withdrawn key stops vouching for it', async () => {
    const clock = new FixedClock();
    const { authenticator, verifier } = setUp(passing(clock, 24 * HOUR), clock);
    await authenticator.authenticate('a.b.c', 'ip');
    clock.advance(VERIFIED_TTL_MS - 1);
    authenticator.authenticate('a.b.c', 'ip');
    expect(verifier.calls).toBe(1);
    clock.advance(1);
    await authenticator.authenticate('a.b.c', 'ip');
    expect(verifier.calls).toBe(2);
  });

  it('keeps at most VERIFIED_MAX tokens', async () => {
    const clock = new FixedClock();
    const { authenticator, verifier } = setUp(passing(clock), clock);
    for (let i = 0; i <= VERIFIED_MAX; i += 1) await authenticator.authenticate(`t${i}`, 'ip');
    expect(verifier.calls).toBe(VERIFIED_MAX + 1);
    await authenticator.authenticate('t0', 'ip');
    expect(verifier.calls).toBe(VERIFIED_MAX + 2);
  });

  it('refuses what the verifier refuses, audited with the reason and the issuer, never the token, and does not keep it', async () => {
    const { authenticator, audit, verifier } = setUp(() => ({ ok: false, reason: 'audience', issuerId: 'ci' }));
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJ4In0.c2ln';
    expect(await authenticator.authenticate(token, '192.0.2.1', 'r1')).toEqual({ kind: 'invalid_token' });
    await authenticator.authenticate(token, '192.0.2.1', 'r2');
    expect(verifier.calls).toBe(2);
    expect(audit.events[0]).toEqual({ event: 'token_refused', reason: 'audience', issuer: 'ci', ip: '192.0.2.1', requestId: 'r1' });
    expect(JSON.stringify(audit.events)).not.toContain(token);
  });

  it('refuses an oversized token without asking the verifier', () => {
    const { authenticator, audit, verifier } = setUp(() => ({ ok: true, issuerId: 'ci', subject: 's', groups: [], expiresAt: Infinity }));
    expect(authenticator.authenticate('x'.repeat(8193), 'ip')).toEqual({ kind: 'invalid_token' });
    expect(verifier.calls).toBe(0);
    expect(audit.events).toEqual([{ event: 'token_refused', reason: 'oversized', ip: 'ip', requestId: undefined }]);
  });

  it('answers unavailable (refused, never passed) when the issuer cannot be asked for its keys', async () => {
    const { authenticator, audit } = setUp(() => ({ ok: false, reason: 'unavailable', issuerId: 'ci' }));
    expect(await authenticator.authenticate('a.b.c', 'ip')).toEqual({ kind: 'unavailable' });
    expect(audit.events).toEqual([{ event: 'token_refused', reason: 'unavailable', issuer: 'ci', ip: 'ip', requestId: undefined }]);
  });

  it('refuses, as malformed, a token the verifier throws on', async () => {
    const { authenticator, verifier } = setUp(() => {
      throw new Error('boom');
    });
    verifier.verify = () => {
      throw new Error('boom');
    };
    expect(await authenticator.authenticate('a.b.c', 'ip')).toEqual({ kind: 'invalid_token' });
  });
});
