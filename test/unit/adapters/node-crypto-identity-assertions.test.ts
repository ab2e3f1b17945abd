import { NodeCryptoIdentityAssertions } from '../../../src/adapters/crypto/node-crypto-identity-assertions';
import { Sha256SubjectIdentifiers } from '../../../src/adapters/crypto/sha256-subject-identifiers';
import { currentSigningKey, type SigningKey } from '../../../src/adapters/crypto/signing-key-set';
import { generateSigningKeySet, loadSigningKeys } from '../../../src/composition/oidc-keys';
import type { SigningKeys } from '../../../src/application/oidc/signing-keys';
import { isPending } from '../../../src/application/ports/awaitable';
import type { ProvenMethods } from '../../../src/domain/login-methods';
import type { Identity } from '../../../src/domain/session';
import { FixedClock } from '../../support/fakes';
import { unverifiedClaims, verifyRs256 } from '../../support/jwt';
import { generateKeyPairSync } from 'node:crypto';

const ISSUER = 'https://auth.example.test';
const KEY_SET = generateSigningKeySet();
const KEY = currentSigningKey(KEY_SET);
/** What the provider publishes at its JWKS: the public halves of the key set. */
const JWKS = { keys: [KEY.publicJwk] };
const subjects = new Sha256SubjectIdentifiers();

const alice: Identity = Object.freeze({
  username: 'alice',
  name: 'Alice Example',
  email: 'alice@example.test',
  groups: ['staff', 'ops'],
  provider: 'username',
  oauth: false,
  totp: true,
});

/** The answer of a signer whose key is loaded: at once, never a promise. */
function at(s: NodeCryptoIdentityAssertions, identity: Identity, audience: string, proven?: ProvenMethods): string | null {
  const answer = s.assertionFor(identity, audience, proven);
  if (isPending(answer)) throw new Error('expected an answer at once');
  return answer;
}

async function signer(clock = new FixedClock(), key: SigningKey = KEY, capacity?: number): Promise<NodeCryptoIdentityAssertions> {
  const s = new NodeCryptoIdentityAssertions(ISSUER, subjects, clock, async () => key, undefined, capacity);
  await s.load();
  return s;
}

describe('NodeCryptoIdentityAssertions', () => {
  it('signs an RS256 JWT that verifies against the JWKS, with iss, aud = host, sub, email, groups and exp five minutes on', async () => {
    const clock = new FixedClock();
    const token = at(await signer(clock), alice, 'wiki.example.test');
    const { header, claims } = verifyRs256(token ?? '', JWKS);
    expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: KEY.kid });
    const iat = Math.floor(clock.now() / 1000);
    expect(claims).toEqual({
      iss: ISSUER,
      aud: 'wiki.example.test',
      sub: subjects.subjectOf('username', 'alice'),
      email: 'alice@example.test',
      name: 'Alice Example',
      preferred_username: 'alice',
      groups: ['staff', 'ops'],
      iat,
      exp: iat + 300,
    });
  });

  it('never puts the e-mail or the username in the subject', async () => {
    const claims = unverifiedClaims(at(await signer(), alice, 'wiki.example.test') ?? '');
    expect(claims.sub).not.toContain('alice');
    expect(typeof claims.sub).toBe('string');
  });

  it('gives an HTTP Basic identity the same subject as the same account logged in on the page', async () => {
    const s = await signer();
    const page = unverifiedClaims(at(s, alice, 'wiki.example.test') ?? '');
    const basic = unverifiedClaims(at(s, { ...alice, provider: 'basic' }, 'wiki.example.test') ?? '');
    expect(basic.sub).toBe(page.sub);
    const github = unverifiedClaims(at(s, { ...alice, provider: 'github', oauth: true }, 'wiki.example.test') ?? '');
    expect(github.sub).not.toBe(page.sub);
  });

  it('reuses one token per identity and application until a minute before it expires, then signs a fresh one', async () => {
    const clock = new FixedClock();
    const s = await signer(clock);
    const first = at(s, alice, 'wiki.example.test');
    // A different object with the same values: the cache is keyed by value.
    expect(at(s, { ...alice, groups: [...alice.groups] }, 'wiki.example.test')).toBe(first);
    clock.advance(239_000);
    expect(at(s, alice, 'wiki.example.test')).toBe(first);
    clock.advance(1_000);
    const second = at(s, alice, 'wiki.example.test');
    expect(second).not.toBe(first);
    const claims = verifyRs256(second ?? '', JWKS).claims;
    expect(claims.exp).toBe(Math.floor(clock.now() / 1000) + 300);
  });

  it('gives each application its own audience', async () => {
    const s = await signer();
    const wiki = at(s, alice, 'wiki.example.test');
    const blog = at(s, alice, 'blog.example.test');
    expect(wiki).not.toBe(blog);
    expect(verifyRs256(blog ?? '', JWKS).claims.aud).toBe('blog.example.test');
  });

  it('signs anew at once when what the token says changes (groups, e-mail)', async () => {
    const s = await signer();
    const before = at(s, alice, 'wiki.example.test');
    const fewer = at(s, { ...alice, groups: ['staff'] }, 'wiki.example.test');
    expect(fewer).not.toBe(before);
    expect(verifyRs256(fewer ?? '', JWKS).claims.groups).toEqual(['staff']);
    // Groups cannot be run together to look like another set: ["a,b"] and ["a","b"] differ.
    const joined = at(s, { ...alice, groups: ['staff,ops'] }, 'wiki.example.test');
    expect(verifyRs256(joined ?? '', JWKS).claims.groups).toEqual(['staff,ops']);
    const moved = at(s, { ...alice, email: 'alice@new.example.test' }, 'wiki.example.test');
    expect(verifyRs256(moved ?? '', JWKS).claims.email).toBe('alice@new.example.test');
  });

  it('tells what a session proved: amr (RFC 8176), auth_time (its latest proof, seconds) and acr', async () => {
    const clock = new FixedClock();
    const s = await signer(clock);
    const proven: ProvenMethods = { password: 1_700_000_000_000, totp: 1_700_000_090_500 };
    const claims = verifyRs256(at(s, alice, 'wiki.example.test', proven) ?? '', JWKS).claims;
    expect(claims).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], auth_time: 1_700_000_090, acr: 'mfa' });
    const passkey = verifyRs256(at(s, alice, 'wiki.example.test', { passkey: 1_700_000_000_000 }) ?? '', JWKS).claims;
    expect(passkey).toMatchObject({ amr: ['hwk', 'user', 'mfa'], auth_time: 1_700_000_000, acr: 'phr' });
  });

  it('says nothing of proofs for a caller that proved none (HTTP Basic, a token, a JWT, a cookie sealed before them)', async () => {
    const s = await signer();
    for (const proven of [undefined, {}]) {
      const claims = verifyRs256(at(s, alice, 'wiki.example.test', proven) ?? '', JWKS).claims;
      expect(claims).not.toHaveProperty('amr');
      expect(claims).not.toHaveProperty('auth_time');
      expect(claims).not.toHaveProperty('acr');
    }
  });

  it('signs anew at once for a session that stepped up, never handing back the assertion of before', async () => {
    const clock = new FixedClock();
    const s = await signer(clock);
    const loggedIn = clock.now();
    const before = at(s, alice, 'wiki.example.test', { password: loggedIn });
    // The same proofs again (another request of the same session): the same token.
    expect(at(s, alice, 'wiki.example.test', { password: loggedIn })).toBe(before);
    clock.advance(30_000);
    // A TOTP code proven in a step-up: another method, so a new amr and acr.
    const stepped = at(s, alice, 'wiki.example.test', { password: loggedIn, totp: clock.now() });
    expect(stepped).not.toBe(before);
    expect(verifyRs256(stepped ?? '', JWKS).claims).toMatchObject({ amr: ['pwd', 'otp', 'mfa'], acr: 'mfa', auth_time: Math.floor(clock.now() / 1000) });
    clock.advance(30_000);
    // The password proven again (max_age): the same methods, a later auth_time.
    const again = at(s, alice, 'wiki.example.test', { password: clock.now(), totp: loggedIn + 30_000 });
    expect(again).not.toBe(stepped);
    expect(verifyRs256(again ?? '', JWKS).claims.auth_time).toBe(Math.floor(clock.now() / 1000));
    // The session that did not step up still gets its own (cached) token, with what it proved.
    expect(at(s, alice, 'wiki.example.test', { password: loggedIn })).toBe(before);
  });

  it('keeps at most its capacity of signed tokens', async () => {
    const s = await signer(new FixedClock(), KEY, 2);
    const a = at(s, alice, 'a.example.test');
    at(s, alice, 'b.example.test');
    at(s, alice, 'c.example.test');
    // `a` was the oldest: it was dropped and is signed again (same second, same claims: same bytes).
    expect(at(s, alice, 'a.example.test')).toBe(a);
    expect((s as unknown as { cache: { size: number } }).cache.size).toBe(2);
  });

  it('makes the first requests wait while the key is read, and reads it once', async () => {
    let loads = 0;
    let release: (k: SigningKey) => void = () => undefined;
    const s = new NodeCryptoIdentityAssertions(ISSUER, subjects, new FixedClock(), () => {
      loads += 1;
      return new Promise<SigningKey>((resolve) => (release = resolve));
    });
    const first = s.assertionFor(alice, 'wiki.example.test');
    const second = s.assertionFor(alice, 'wiki.example.test');
    expect(first).toBeInstanceOf(Promise);
    release(KEY);
    const [a, b] = await Promise.all([first, second]);
    expect(loads).toBe(1);
    expect(a).toBe(b);
    expect(verifyRs256(a ?? '', JWKS).claims.aud).toBe('wiki.example.test');
    expect(at(s, alice, 'wiki.example.test')).toBe(a);
  });

  it('reports a failed load without key material, refuses at once, and tries again at most every five seconds', async () => {
    const errors: unknown[] = [];
    let loads = 0;
    let fail = true;
    const clock = new FixedClock();
    const s = new NodeCryptoIdentityAssertions(
      ISSUER,
      subjects,
      clock,
      async () => {
        loads += 1;
        if (fail) return currentSigningKey('{"keys":[]}');
        return KEY;
      },
      (e) => errors.push(e),
    );
    await expect(s.assertionFor(alice, 'wiki.example.test')).resolves.toBeNull();
    expect(errors.map(String)).toEqual(['Error: the signing key set has no RS256 key']);
    fail = false;
    expect(s.assertionFor(alice, 'wiki.example.test')).toBeNull();
    expect(loads).toBe(1);
    clock.advance(5_000);
    const retried = await s.assertionFor(alice, 'wiki.example.test');
    expect(loads).toBe(2);
    expect(verifyRs256(retried ?? '', JWKS).claims.aud).toBe('wiki.example.test');
  });

  it('signs with a PEM key (OIDC_SIGNING_KEY_FILE), its kid the key thumbprint', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const noStore: SigningKeys = { getOrCreate: () => Promise.reject(new Error('unused')), replace: () => Promise.reject(new Error('unused')) };
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const key = currentSigningKey(JSON.stringify({ keys: await loadSigningKeys(pem, noStore) }));
    const token = at(await signer(new FixedClock(), key), alice, 'wiki.example.test') ?? '';
    expect(verifyRs256(token, { keys: [key.publicJwk] }).header.kid).toBe(key.kid);
    expect(() => verifyRs256(token, JWKS)).toThrow();
  });

  it('refuses key sets that cannot sign RS256, without echoing key material', () => {
    expect(() => currentSigningKey('not json')).toThrow('the signing key set is not JSON');
    expect(() => currentSigningKey('{"keys":[{"kty":"RSA","alg":"RS256","n":"AQAB","e":"AQAB"}]}')).toThrow('the RS256 signing key has no "kid"');
    expect(() => currentSigningKey('{"keys":[{"kid":"k1","kty":"RSA","alg":"RS256","n":"secretN","e":"AQAB"}]}')).toThrow(
      'the RS256 signing key "k1" is not a private JWK',
    );
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'jwk' });
    expect(() => currentSigningKey(JSON.stringify({ keys: [{ ...small, kid: 'k', alg: 'RS256', use: 'sig' }] }))).toThrow('at least 2048');
  });
});
