import * as jose from 'jose';
import { JoseJwtVerifier, type JwtIssuer } from '../../../src/adapters/jwt/jose-jwt-verifier';
import { issuerKey, TestJwtIssuer, unsignedJwt, type IssuerKey } from '../../support/jwt-issuer';

// Issue 32: workload JWTs checked against a real issuer (discovery document and key set over HTTP).
const AUDIENCE = 'https://auth.example.test';
const COOLDOWN = 30_000;
const MAX_AGE = 600_000;

describe('JoseJwtVerifier', () => {
  let issuer: TestJwtIssuer;
  let rsa: IssuerKey;
  let ec: IssuerKey;
  let now: number;

  beforeAll(async () => {
    [rsa, ec] = await Promise.all([issuerKey('rsa-1', 'RS256'), issuerKey('ec-1', 'ES256')]);
  });
  beforeEach(async () => {
    issuer = await new TestJwtIssuer().start();
    issuer.published = [rsa, ec];
    now = Date.now();
  });
  afterEach(() => issuer.close());

  const verifierFor = (more: Partial<JwtIssuer> = {}): JoseJwtVerifier =>
    new JoseJwtVerifier(
      jose,
      [{ id: 'ci', issuer: issuer.url, audiences: [AUDIENCE], usernameClaim: 'sub', groupsClaim: 'groups', algorithms: ['RS256', 'ES256'], ...more }],
      { now: () => now, cooldownMs: COOLDOWN, maxAgeMs: MAX_AGE, timeoutMs: 2000 },
    );

  it('passes RS256 and ES256 tokens of the issuer, its keys found through discovery once', async () => {
    const verifier = verifierFor();
    const token = await issuer.sign(rsa, { sub: 'repo:x', groups: ['deploy', 'ops'], aud: AUDIENCE });
    const exp = (jose.decodeJwt(token).exp as number) * 1000;
    expect(await verifier.verify(token)).toEqual({ ok: true, issuerId: 'ci', subject: 'repo:x', groups: ['deploy', 'ops'], expiresAt: exp });
    expect(await verifier.verify(await issuer.sign(ec, { sub: 'repo:y', groups: 'ops', aud: [AUDIENCE, 'other'] }))).toMatchObject({
      ok: true,
      subject: 'repo:y',
      groups: ['ops'],
    });
    expect(issuer.hits).toEqual({ discovery: 1, jwks: 1 });
  });

  it('reads the key set from JWKS_URL without discovery, and the username from another claim', async () => {
    const verifier = verifierFor({ jwksUrl: `${issuer.url}/jwks`, usernameClaim: 'repository' });
    expect(await verifier.verify(await issuer.sign(rsa, { sub: 'x', repository: 'org/app', aud: AUDIENCE }))).toMatchObject({ ok: true, subject: 'org/app' });
    expect(issuer.hits).toEqual({ discovery: 0, jwks: 1 });
  });

  it('refuses wrong audiences and issuers, expired and not-yet-valid tokens (30 s of leeway), tokens without exp', async () => {
    const verifier = verifierFor();
    const seconds = Math.floor(now / 1000);
    const refusal = async (claims: Record<string, unknown>) => verifier.verify(await issuer.sign(rsa, { sub: 'repo:x', aud: AUDIENCE, ...claims }));
    expect(await refusal({ aud: 'https://elsewhere.example.test' })).toEqual({ ok: false, reason: 'audience', issuerId: 'ci' });
    expect(await refusal({ aud: undefined })).toEqual({ ok: false, reason: 'audience', issuerId: 'ci' });
    expect(await refusal({ iss: 'https://other-issuer.example.test' })).toEqual({ ok: false, reason: 'unknown_issuer' });
    expect(await refusal({ exp: seconds - 31 })).toEqual({ ok: false, reason: 'expired', issuerId: 'ci' });
    expect(await refusal({ exp: seconds - 20 })).toMatchObject({ ok: true });
    expect(await refusal({ nbf: seconds + 60 })).toEqual({ ok: false, reason: 'not_yet_valid', issuerId: 'ci' });
    expect(await refusal({ nbf: seconds + 20 })).toMatchObject({ ok: true });
    expect(await refusal({ exp: undefined })).toEqual({ ok: false, reason: 'malformed', issuerId: 'ci' });
    expect(await refusal({ sub: undefined })).toEqual({ ok: false, reason: 'subject', issuerId: 'ci' });
    expect(await refusal({ sub: 'a\nb' })).toEqual({ ok: false, reason: 'subject', issuerId: 'ci' });
  });

  it('refuses alg none, HMAC, algorithms not configured, keys of the wrong type, and forged signatures', async () => {
    const verifier = verifierFor();
    const claims = { iss: issuer.url, sub: 'repo:x', aud: AUDIENCE, exp: Math.floor(now / 1000) + 600 };
    expect(await verifier.verify(unsignedJwt(claims))).toEqual({ ok: false, reason: 'algorithm', issuerId: 'ci' });
    const hmac = await new jose.SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'rsa-1' }).sign(new TextEncoder().encode('x'.repeat(32)));
    expect(await verifier.verify(hmac)).toEqual({ ok: false, reason: 'algorithm', issuerId: 'ci' });
    const ps = await issuerKey('ps-1', 'PS256');
    issuer.published = [rsa, ec, ps];
    expect(await verifier.verify(await issuer.sign(ps, claims))).toEqual({ ok: false, reason: 'algorithm', issuerId: 'ci' });
    // An EC signature under the RSA key's id: no key of that id has the type ES256 needs.
    expect(await verifier.verify(await issuer.sign(ec, claims, { kid: 'rsa-1' }))).toEqual({ ok: false, reason: 'unknown_key', issuerId: 'ci' });
    const genuine = await issuer.sign(rsa, claims);
    const [header, , signature] = genuine.split('.');
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, sub: 'repo:admin' })).toString('base64url')}.${signature}`;
    expect(await verifier.verify(forged)).toEqual({ ok: false, reason: 'signature', issuerId: 'ci' });
    expect(await verifier.verify('not.a.jwt')).toEqual({ ok: false, reason: 'malformed' });
  });

  it('fetches the key set again for a new key id, at most once per cooldown', async () => {
    const verifier = verifierFor();
    expect(await verifier.verify(await issuer.sign(rsa, { sub: 'a', aud: AUDIENCE }))).toMatchObject({ ok: true });
    expect(issuer.hits.jwks).toBe(1);
    const rotated = await issuerKey('rsa-2', 'RS256');
    issuer.published = [rsa, ec, rotated];
    now += COOLDOWN;
    expect(await verifier.verify(await issuer.sign(rotated, { sub: 'a', aud: AUDIENCE }))).toMatchObject({ ok: true });
    expect(issuer.hits.jwks).toBe(2);
    // Made-up key ids within the cooldown cost the issuer nothing.
    const stranger = await issuerKey('rsa-3', 'RS256');
    for (let i = 0; i < 5; i += 1) {
      expect(await verifier.verify(await issuer.sign(stranger, { sub: 'a', aud: AUDIENCE }))).toEqual({ ok: false, reason: 'unknown_key', issuerId: 'ci' });
    }
    expect(issuer.hits.jwks).toBe(2);
    now += COOLDOWN;
    expect(await verifier.verify(await issuer.sign(stranger, { sub: 'a', aud: AUDIENCE }))).toEqual({ ok: false, reason: 'unknown_key', issuerId: 'ci' });
    expect(issuer.hits.jwks).toBe(3);
  });

  it('keeps passing tokens of the keys it holds while the issuer is down, and refuses what it cannot check', async () => {
    const verifier = verifierFor();
    const token = await issuer.sign(rsa, { sub: 'a', aud: AUDIENCE });
    expect(await verifier.verify(token)).toMatchObject({ ok: true });
    issuer.down = true;
    now += MAX_AGE + COOLDOWN;
    // The key set is old: a refresh is tried in the background, fails, and the keys held still check.
    expect(await verifier.verify(await issuer.sign(ec, { sub: 'b', aud: AUDIENCE }))).toMatchObject({ ok: true, subject: 'b' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await verifier.verify(token)).toMatchObject({ ok: true });
    // A key it does not hold cannot be checked: never passed.
    const rotated = await issuerKey('rsa-2', 'RS256');
    now += COOLDOWN;
    expect(await verifier.verify(await issuer.sign(rotated, { sub: 'a', aud: AUDIENCE }))).toEqual({ ok: false, reason: 'unavailable', issuerId: 'ci' });
    expect(await verifier.verify(await issuer.sign(rotated, { sub: 'a', aud: AUDIENCE }))).toEqual({ ok: false, reason: 'unavailable', issuerId: 'ci' });
    // Back up, after the cooldown: the new key is fetched.
    issuer.down = false;
    issuer.published = [rsa, ec, rotated];
    now += COOLDOWN;
    expect(await verifier.verify(await issuer.sign(rotated, { sub: 'a', aud: AUDIENCE }))).toMatchObject({ ok: true });
  });

  it('answers unavailable when it never got the keys, asking the issuer at most once per cooldown', async () => {
    issuer.down = true;
    const verifier = verifierFor({ jwksUrl: `${issuer.url}/jwks` });
    const token = await issuer.sign(rsa, { sub: 'a', aud: AUDIENCE });
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: 'unavailable', issuerId: 'ci' });
    issuer.down = false;
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: 'unavailable', issuerId: 'ci' });
    expect(issuer.hits.jwks).toBe(0);
    now += COOLDOWN;
    expect(await verifier.verify(token)).toMatchObject({ ok: true });
  });

  it('refuses a discovery document that names another issuer', async () => {
    const verifier = new JoseJwtVerifier(jose, [{ id: 'ci', issuer: `${issuer.url}/`, audiences: [AUDIENCE], usernameClaim: 'sub', algorithms: ['RS256'] }], {
      now: () => now,
    });
    const token = await issuer.sign(rsa, { iss: `${issuer.url}/`, sub: 'a', aud: AUDIENCE });
    expect(await verifier.verify(token)).toEqual({ ok: false, reason: 'unavailable', issuerId: 'ci' });
  });
});
