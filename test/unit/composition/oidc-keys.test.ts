import { generateKeyPairSync } from 'node:crypto';
import { InMemorySigningKeys } from '../../../src/adapters/state/memory/in-memory-signing-keys';
import {
  changeKeySet,
  generateSigningKeySet,
  KeySetChangeError,
  loadSigningKeys,
  parseSigningKeySet,
  publicJwks,
  type SigningJwk,
} from '../../../src/composition/oidc-keys';

describe('the signing key loader', () => {
  it('turns OIDC_SIGNING_KEY_FILE into one RS256 signing JWK named by its thumbprint', async () => {
    const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const [key, ...rest] = await loadSigningKeys(pem, new InMemorySigningKeys());
    expect(rest).toEqual([]);
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), d: expect.any(String) });
    expect((await loadSigningKeys(pem, new InMemorySigningKeys()))[0].kid).toBe(key.kid);
  });

  it('reads several keys from one file in order: the first signs, the others stay published (rotation)', async () => {
    const pem = (): string => generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    const older = pem();
    const newer = pem();
    const [old] = await loadSigningKeys(older, new InMemorySigningKeys());
    const both = await loadSigningKeys(`${newer}\n${older}`, new InMemorySigningKeys());
    expect(both).toHaveLength(2);
    expect(both[1].kid).toBe(old.kid);
    expect(both[0].kid).not.toBe(old.kid);
  });

  it('generates a key set once in the store, and every later load (another replica, a restart) gets the same one', async () => {
    const store = new InMemorySigningKeys();
    const first = await loadSigningKeys(null, store);
    const again = await loadSigningKeys(null, store);
    expect(again.map((k) => k.kid)).toEqual(first.map((k) => k.kid));
    expect(first[0]).toMatchObject({ alg: 'RS256', use: 'sig' });
  });

  it('puts the first RS256 key first (it signs), keeping the others for verification (rotation)', () => {
    const a = JSON.parse(generateSigningKeySet()).keys[0];
    const b = JSON.parse(generateSigningKeySet()).keys[0];
    const ec = { ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }), kid: 'ec1', alg: 'ES256', use: 'sig' };
    expect(parseSigningKeySet(JSON.stringify({ keys: [ec, b, a] })).map((k) => k.kid)).toEqual([b.kid, 'ec1', a.kid]);
  });

  it('refuses a stored set that is not one, without repeating it', () => {
    for (const bad of [
      'nope',
      '{}',
      '{"keys":[]}',
      JSON.stringify({ keys: [{ kid: 'k', alg: 'RS256', use: 'sig' }] }),
      JSON.stringify({ keys: [{ kid: 'k', alg: 'ES256', use: 'sig', d: 'x' }] }),
    ]) {
      expect(() => parseSigningKeySet(bad)).toThrow(/stored OpenID Connect signing key set/);
    }
  });

  it('publishes no private part', () => {
    const keys = parseSigningKeySet(generateSigningKeySet());
    for (const k of publicJwks(keys).keys) for (const part of ['d', 'p', 'q', 'dp', 'dq', 'qi']) expect(k).not.toHaveProperty(part);
  });
});

describe('changing the stored key set (portcullis oidc keys)', () => {
  const key = (kid: string, alg = 'RS256'): SigningJwk => ({ kty: 'RSA', kid, alg, use: 'sig', d: 'private' });
  const kids = (keys: readonly SigningJwk[]): string[] => keys.map((k) => k.kid);
  const set = [key('current'), key('older')];

  it('rotate: a new key signs, every older key stays published', () => {
    expect(kids(changeKeySet(set, { kind: 'rotate' }, () => key('new')))).toEqual(['new', 'current', 'older']);
  });

  it('add: a new key is published after the others and does not sign yet; promote makes it sign', () => {
    const added = changeKeySet(set, { kind: 'add' }, () => key('next'));
    expect(kids(added)).toEqual(['current', 'older', 'next']);
    expect(kids(parseSigningKeySet(JSON.stringify({ keys: added })))[0]).toBe('current');
    expect(kids(changeKeySet(added, { kind: 'promote', kid: 'next' }))).toEqual(['next', 'current', 'older']);
  });

  it('retire: a key that no longer signs leaves the set; the signing key and unknown kids are refused', () => {
    expect(kids(changeKeySet(set, { kind: 'retire', kid: 'older' }))).toEqual(['current']);
    expect(() => changeKeySet(set, { kind: 'retire', kid: 'current' })).toThrow(KeySetChangeError);
    expect(() => changeKeySet(set, { kind: 'retire', kid: 'current' })).toThrow(/signs: rotate/);
    expect(() => changeKeySet(set, { kind: 'retire', kid: 'nope' })).toThrow(/no key nope/);
  });

  it('promote refuses an unknown kid and a key that cannot sign RS256', () => {
    expect(() => changeKeySet(set, { kind: 'promote', kid: 'nope' })).toThrow(KeySetChangeError);
    expect(() => changeKeySet([...set, key('ec', 'ES256')], { kind: 'promote', kid: 'ec' })).toThrow(/ES256/);
  });

  it('makes real RS256 keys named by their thumbprint by default', () => {
    const [fresh] = changeKeySet(set, { kind: 'rotate' });
    expect(fresh).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), d: expect.any(String) });
  });
});
