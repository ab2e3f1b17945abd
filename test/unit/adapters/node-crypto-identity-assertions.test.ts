import { NodeCryptoIdentityAssertions } from '../../../src/adapters/crypto/node-crypto-identity-assertions';
import { HmacSubjectIdentifiers } from '../../../src/adapters/crypto/hmac-subject-identifiers';
import { currentSigningKey, generateSigningKeySet, signingKeyFromPem, type SigningKey } from '../../../src/adapters/crypto/signing-key-set';
import type { Identity } from '../../../src/domain/session';
import { FixedClock } from '../../support/fakes';
import { unverifiedClaims, verifyRs256 } from '../../support/jwt';
import { generateKeyPairSync } from 'node:crypto';

const ISSUER = 'https://auth.example.test';
const KEY_SET = generateSigningKeySet();
const KEY = currentSigningKey(KEY_SET);
/** What the provider publishes at its JWKS: the public halves of the key set. */
const JWKS = { keys: [KEY.publicJwk] };
const subjects = new HmacSubjectIdentifiers(Buffer.alloc(32, 7));

const alice: Identity = Object.freeze({
  username: 'alice',
  name: 'Alice Example',
  email: 'alice@example.test',
  groups: ['staff', 'ops'],
  provider: 'username',
  oauth: false,
  totp: true,
});

async function signer(clock = new FixedClock(), key: SigningKey = KEY, capacity?: number): Promise<NodeCryptoIdentityAssertions> {
  const s = new NodeCryptoIdentityAssertions(ISSUER, subjects, clock, async () => key, undefined, capacity);
  await s.load();
  return s;
}

describe('NodeCryptoIdentityAssertions', () => {
  it('signs an RS256 JWT that verifies against the JWKS, with iss, aud = host, sub, email, groups and exp five minutes on', async () => {
    const clock = new FixedClock();
    const token = (await signer(clock)).assertionFor(alice, 'wiki.example.test');
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
    const claims = unverifiedClaims((await signer()).assertionFor(alice, 'wiki.example.test') ?? '');
    expect(claims.sub).not.toContain('alice');
    expect(typeof claims.sub).toBe('string');
  });

  it('gives an HTTP Basic identity the same subject as the same account logged in on the page', async () => {
    const s = await signer();
    const page = unverifiedClaims(s.assertionFor(alice, 'wiki.example.test') ?? '');
    const basic = unverifiedClaims(s.assertionFor({ ...alice, provider: 'basic' }, 'wiki.example.test') ?? '');
    expect(basic.sub).toBe(page.sub);
    const github = unverifiedClaims(s.assertionFor({ ...alice, provider: 'github', oauth: true }, 'wiki.example.test') ?? '');
    expect(github.sub).not.toBe(page.sub);
  });

  it('reuses one token per identity and application until a minute before it expires, then signs a fresh one', async () => {
    const clock = new FixedClock();
    const s = await signer(clock);
    const first = s.assertionFor(alice, 'wiki.example.test');
    // A different object with the same values: the cache is keyed by value.
    expect(s.assertionFor({ ...alice, groups: [...alice.groups] }, 'wiki.example.test')).toBe(first);
    clock.advance(239_000);
    expect(s.assertionFor(alice, 'wiki.example.test')).toBe(first);
    clock.advance(1_000);
    const second = s.assertionFor(alice, 'wiki.example.test');
    expect(second).not.toBe(first);
    const claims = verifyRs256(second ?? '', JWKS).claims;
    expect(claims.exp).toBe(Math.floor(clock.now() / 1000) + 300);
  });

  it('gives each application its own audience', async () => {
    const s = await signer();
    const wiki = s.assertionFor(alice, 'wiki.example.test');
    const blog = s.assertionFor(alice, 'blog.example.test');
    expect(wiki).not.toBe(blog);
    expect(verifyRs256(blog ?? '', JWKS).claims.aud).toBe('blog.example.test');
  });

  it('signs anew at once when what the token says changes (groups, e-mail)', async () => {
    const s = await signer();
    const before = s.assertionFor(alice, 'wiki.example.test');
    const fewer = s.assertionFor({ ...alice, groups: ['staff'] }, 'wiki.example.test');
    expect(fewer).not.toBe(before);
    expect(verifyRs256(fewer ?? '', JWKS).claims.groups).toEqual(['staff']);
    // Groups cannot be run together to look like another set: ["a,b"] and ["a","b"] differ.
    const joined = s.assertionFor({ ...alice, groups: ['staff,ops'] }, 'wiki.example.test');
    expect(verifyRs256(joined ?? '', JWKS).claims.groups).toEqual(['staff,ops']);
    const moved = s.assertionFor({ ...alice, email: 'alice@new.example.test' }, 'wiki.example.test');
    expect(verifyRs256(moved ?? '', JWKS).claims.email).toBe('alice@new.example.test');
  });

  it('keeps at most its capacity of signed tokens', async () => {
    const s = await signer(new FixedClock(), KEY, 2);
    const a = s.assertionFor(alice, 'a.example.test');
    s.assertionFor(alice, 'b.example.test');
    s.assertionFor(alice, 'c.example.test');
    // `a` was the oldest: it was dropped and is signed again (same second, same claims: same bytes).
    expect(s.assertionFor(alice, 'a.example.test')).toBe(a);
    expect((s as unknown as { cache: { size: number } }).cache.size).toBe(2);
  });

  it('answers null (the caller refuses) until the key is loaded, and loads it once', async () => {
    let loads = 0;
    let release: (k: SigningKey) => void = () => undefined;
    const s = new NodeCryptoIdentityAssertions(ISSUER, subjects, new FixedClock(), () => {
      loads += 1;
      return new Promise<SigningKey>((resolve) => (release = resolve));
    });
    expect(s.assertionFor(alice, 'wiki.example.test')).toBeNull();
    expect(s.assertionFor(alice, 'wiki.example.test')).toBeNull();
    release(KEY);
    await s.load();
    expect(loads).toBe(1);
    expect(verifyRs256(s.assertionFor(alice, 'wiki.example.test') ?? '', JWKS).claims.aud).toBe('wiki.example.test');
  });

  it('reports a failed load without key material and tries again at most every five seconds', async () => {
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
    await s.load();
    expect(errors.map(String)).toEqual(['Error: the signing key set has no RS256 key']);
    fail = false;
    expect(s.assertionFor(alice, 'wiki.example.test')).toBeNull();
    expect(loads).toBe(1);
    clock.advance(5_000);
    expect(s.assertionFor(alice, 'wiki.example.test')).toBeNull();
    expect(loads).toBe(2);
    await s.load();
    expect(s.assertionFor(alice, 'wiki.example.test')).not.toBeNull();
  });

  it('signs with a PEM key (OIDC_SIGNING_KEY_FILE), its kid the key thumbprint', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = signingKeyFromPem(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString());
    const token = (await signer(new FixedClock(), key)).assertionFor(alice, 'wiki.example.test') ?? '';
    expect(verifyRs256(token, { keys: [key.publicJwk] }).header.kid).toBe(key.kid);
    expect(() => verifyRs256(token, JWKS)).toThrow();
  });

  it('refuses key sets that cannot sign RS256, without echoing key material', () => {
    expect(() => currentSigningKey('not json')).toThrow('the signing key set is not JSON');
    expect(() => currentSigningKey('{"keys":[{"kty":"RSA","alg":"RS256","n":"AQAB","e":"AQAB"}]}')).toThrow('the RS256 signing key has no "kid"');
    expect(() => currentSigningKey('{"keys":[{"kid":"k1","kty":"RSA","alg":"RS256","n":"secretN","e":"AQAB"}]}')).toThrow(
      'the RS256 signing key "k1" is not a private JWK',
    );
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    expect(() => signingKeyFromPem(small)).toThrow('at least 2048');
  });
});
