import { createCipheriv, randomBytes } from 'node:crypto';
import { AesGcmSessionSealer } from '../../../src/adapters/crypto/aes-gcm-session-sealer';
import { deriveKey } from '../../../src/adapters/crypto/key-derivation';
import { aSession, sessionSealerContract } from './session-sealer.contract';

sessionSealerContract('AesGcmSessionSealer', (_env, secret) => new AesGcmSessionSealer(secret));

describe('AesGcmSessionSealer', () => {
  const secret = 'aes-gcm-adapter-test-secret-0123456789abcdef';

  /** Seals an arbitrary plaintext exactly as the adapter would, to reach the payload checks behind the authentication tag. */
  function sealRaw(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', deriveKey(secret, 'session-cookie v1'), iv);
    cipher.setAAD(Buffer.from('portcullis-session-v1'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1.${Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url')}`;
  }

  it('opens a payload sealed by hand with its key (so the checks below reach the payload)', () => {
    const sealer = new AesGcmSessionSealer(secret);
    const payload = { i: 's', u: 'alice', n: 'Alice', e: 'a@example.com', g: ['x'], p: 'username', o: 0, t: 0, q: 0, a: 1, x: 2 };
    expect(sealer.unseal(sealRaw(JSON.stringify(payload)))).toMatchObject({ id: 's', username: 'alice', groups: ['x'], expiresAt: 2 });
  });

  it('opens a cookie sealed before sessions recorded their proofs as proving nothing (a requirement asks for a step-up)', () => {
    const sealer = new AesGcmSessionSealer(secret);
    const payload = { i: 's', u: 'alice', n: 'Alice', e: 'a@example.com', g: [], p: 'username', o: 0, t: 1, q: 0, a: 1, x: 2 };
    expect(sealer.unseal(sealRaw(JSON.stringify(payload)))?.proven).toEqual({});
  });

  it('refuses an authentic payload that is not a session', () => {
    const sealer = new AesGcmSessionSealer(secret);
    const base = { i: 's', u: 'alice', n: 'Alice', e: 'a@example.com', g: [], p: 'username', o: 0, t: 0, q: 0, a: 1, x: 2 };
    for (const plaintext of [
      'null',
      '42',
      '"text"',
      '[]',
      'not json',
      JSON.stringify({ ...base, u: 7 }),
      JSON.stringify({ ...base, g: 'admins' }),
      JSON.stringify({ ...base, g: [1] }),
      JSON.stringify({ ...base, x: '2' }),
      JSON.stringify({ ...base, a: undefined }),
      JSON.stringify({ ...base, i: undefined }),
      JSON.stringify({ ...base, f: 'pwd' }),
      JSON.stringify({ ...base, f: { p: '1' } }),
      JSON.stringify({ ...base, f: null }),
    ]) {
      expect(sealer.unseal(sealRaw(plaintext))).toBeNull();
    }
  });

  it('never serves a cached session to a token that only ends like the cached one', () => {
    const sealer = new AesGcmSessionSealer(secret);
    const token = sealer.seal(aSession());
    expect(sealer.unseal(token)).not.toBeNull();
    // Same authentication tag at the end, a different ciphertext before it (the cache is keyed by the tag).
    const at = token.length - 30;
    const forged = `${token.slice(0, at)}${token[at] === 'A' ? 'B' : 'A'}${token.slice(at + 1)}`;
    expect(forged.slice(-22)).toBe(token.slice(-22));
    expect(sealer.unseal(forged)).toBeNull();
    // And the genuine token still opens from the cache afterwards.
    expect(sealer.unseal(token)).toEqual(sealer.unseal(token));
    expect(sealer.unseal(token)).not.toBeNull();
  });

  it('keeps at most its capacity of opened tokens and still opens every genuine one', () => {
    const sealer = new AesGcmSessionSealer(secret, 2);
    const tokens = [1, 2, 3].map((n) => sealer.seal(aSession({ id: `s${n}` })));
    for (const token of [...tokens, ...tokens]) expect(sealer.unseal(token)?.id).toBe(`s${tokens.indexOf(token) + 1}`);
    expect((sealer as unknown as { opened: Map<string, unknown> }).opened.size).toBe(2);
  });

  it('seals the same session differently every time (fresh IV)', () => {
    const sealer = new AesGcmSessionSealer(secret);
    expect(sealer.seal(aSession())).not.toBe(sealer.seal(aSession()));
  });

  it('hands out sessions that callers cannot modify', () => {
    const sealer = new AesGcmSessionSealer(secret);
    const opened = sealer.unseal(sealer.seal(aSession()));
    expect(Object.isFrozen(opened)).toBe(true);
    expect(Object.isFrozen(opened?.groups)).toBe(true);
  });
});
