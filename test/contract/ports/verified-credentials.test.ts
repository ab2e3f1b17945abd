import { hash } from 'node:crypto';
import { KeyedHashVerifiedCredentials } from '../../../src/adapters/crypto/keyed-hash-verified-credentials';
import { deriveKey } from '../../../src/adapters/crypto/key-derivation';
import { verifiedCredentialsContract } from './verified-credentials.contract';

const SECRET = 'verified-credentials-secret-0123456789-abcdef';

verifiedCredentialsContract('KeyedHashVerifiedCredentials', () => new KeyedHashVerifiedCredentials(SECRET));

describe('KeyedHashVerifiedCredentials', () => {
  const header = { kind: 'basic' as const, username: 'alice', password: 'pw' };

  it('derives different keys under different secrets, so a key is useless elsewhere', () => {
    expect(new KeyedHashVerifiedCredentials(SECRET).keyFor(header)).not.toBe(new KeyedHashVerifiedCredentials(`${SECRET}x`).keyFor(header));
  });

  // ADR 0029: a secret-prefix SHA-256 is a sound keyed hash only over prefix-free inputs, which
  // the two lengths in front make these; this pins that construction.
  it('is SHA-256 over the derived key, both lengths, the username and the password', () => {
    const prefix = `${deriveKey(SECRET, 'basic-cache v3').toString('base64url')}\n`;
    for (const [username, password] of [
      ['alice', 'pw'],
      ['jörg', 'pässwort:x'],
      ['a', ''],
    ]) {
      const key = new KeyedHashVerifiedCredentials(SECRET).keyFor({ kind: 'basic', username, password });
      expect(Buffer.from(key, 'latin1')).toEqual(hash('sha256', `${prefix}${username.length}:${password.length}:${username}${password}`, 'buffer'));
      expect(key).toHaveLength(32);
    }
  });

  // ADR 0034: the HTTP adapter hands over the header's encoded text, and a cached request is
  // answered from it without decoding; the form is tagged apart from the decoded one.
  it('keys credentials the adapter kept encoded by SHA-256 over the derived key, a tag, the length and the encoded text', () => {
    const prefix = `${deriveKey(SECRET, 'basic-cache v3').toString('base64url')}\n`;
    const encoded = Buffer.from('alice:pw').toString('base64');
    const key = new KeyedHashVerifiedCredentials(SECRET).keyFor({ ...header, encoded });
    expect(Buffer.from(key, 'latin1')).toEqual(hash('sha256', `${prefix}b${encoded.length}:${encoded}`, 'buffer'));
    expect(key).toHaveLength(32);
    expect(key).not.toContain('pw');
  });

  it('never gives an encoded text the key of a decoded pair, nor one encoded text the key of another', () => {
    const cache = new KeyedHashVerifiedCredentials(SECRET);
    const padded = Buffer.from('alice:pw').toString('base64');
    const keys = new Set([
      cache.keyFor({ kind: 'basic', username: 'alice', password: 'pw' }),
      cache.keyFor({ kind: 'basic', username: 'alice', password: 'pw', encoded: padded }),
      cache.keyFor({ kind: 'basic', username: 'alice', password: 'pw', encoded: padded.replace(/=+$/, '') }),
      cache.keyFor({ kind: 'basic', username: 'alice', password: 'pw', encoded: `${padded}A` }),
    ]);
    expect(keys.size).toBe(4);
  });

  it('derives unrelated keys for a password and the same password extended', () => {
    const cache = new KeyedHashVerifiedCredentials(SECRET);
    const keys = new Set(['pw', 'pw\u0080', 'pw\u0000\u0000', 'pwx'].map((password) => cache.keyFor({ kind: 'basic', username: 'alice', password })));
    expect(keys.size).toBe(4);
  });

  it('forgets a user whatever the case of the name it is given', () => {
    const cache = new KeyedHashVerifiedCredentials(SECRET);
    const key = cache.keyFor(header);
    cache.put(key, { username: 'Alice', credentialVersion: 'v' }, 0, 60_000);
    cache.forgetUser('alice');
    expect(cache.get(key, 0)).toBeNull();
  });

  it('never holds more entries than its capacity', () => {
    const cache = new KeyedHashVerifiedCredentials(SECRET, 3);
    const keys = ['a', 'b', 'c', 'd'].map((u) => cache.keyFor({ kind: 'basic', username: u, password: 'pw' }));
    keys.forEach((key, i) => cache.put(key, { username: `u${i}`, credentialVersion: 'v' }, 0, 60_000));
    expect(cache.get(keys[0], 0)).toBeNull();
    expect(cache.get(keys[3], 0)).toEqual({ username: 'u3', credentialVersion: 'v' });
  });

  it('keeps a copy, so changing the object given to put changes nothing', () => {
    const cache = new KeyedHashVerifiedCredentials(SECRET);
    const value = { username: 'alice', credentialVersion: 'v1' };
    cache.put('k', value, 0, 60_000);
    value.credentialVersion = 'v2';
    expect(cache.get('k', 0)?.credentialVersion).toBe('v1');
  });
});
