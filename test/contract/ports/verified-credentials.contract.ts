import type { BasicCredentials } from '../../../src/domain/credentials';
import type { VerifiedCredentials } from '../../../src/application/sessions/verified-credentials';
import { unique, useAdapter, type AdapterFactory } from './harness';

const TTL = 60_000;
const basic = (username: string, password: string): BasicCredentials => ({ kind: 'basic', username, password });

/** The behaviour every VerifiedCredentials cache must show. Results are awaited, so an async adapter fits too. */
export function verifiedCredentialsContract(name: string, makeAdapter: AdapterFactory<VerifiedCredentials>): void {
  describe(`VerifiedCredentials contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const cache = (): VerifiedCredentials => subject.adapter();
    const now = (): number => subject.env().clock.now();

    it('derives the same key for the same credentials and different keys for different ones', async () => {
      const a = await cache().keyFor(basic('alice', 'pw'));
      expect(await cache().keyFor(basic('alice', 'pw'))).toBe(a);
      expect(await cache().keyFor(basic('alice', 'pw2'))).not.toBe(a);
      expect(await cache().keyFor(basic('alicf', 'pw'))).not.toBe(a);
    });

    it('derives keys that contain neither the password nor the header that carried it', async () => {
      const key = await cache().keyFor(basic('alice', 'super-secret-password'));
      expect(key).not.toContain('super-secret-password');
      expect(key).not.toContain(Buffer.from('alice:super-secret-password').toString('base64').slice(0, 20));
    });

    it('keeps the username and password apart in the key', async () => {
      expect(await cache().keyFor(basic('alice', 'b:c'))).not.toBe(await cache().keyFor(basic('alice:b', 'c')));
    });

    it('answers null for a key it never stored', async () => {
      expect(await cache().get(await cache().keyFor(basic(unique('nobody'), 'pw')), now())).toBeNull();
    });

    it('gives back what was put, until the time to live runs out', async () => {
      const user = unique('alice');
      const key = await cache().keyFor(basic(user, 'pw'));
      await cache().put(key, { username: user, credentialVersion: 'v1' }, now(), TTL);
      expect(await cache().get(key, now())).toEqual({ username: user, credentialVersion: 'v1' });
      expect(await cache().get(key, now() + TTL - 1)).toEqual({ username: user, credentialVersion: 'v1' });
      expect(await cache().get(key, now() + TTL)).toBeNull();
    });

    it('replaces the entry when the same key is put again', async () => {
      const user = unique('alice');
      const key = await cache().keyFor(basic(user, 'pw'));
      await cache().put(key, { username: user, credentialVersion: 'v1' }, now(), TTL);
      await cache().put(key, { username: user, credentialVersion: 'v2' }, now(), TTL);
      expect(await cache().get(key, now())).toEqual({ username: user, credentialVersion: 'v2' });
    });

    it("forgets every entry of a user and keeps other users' entries", async () => {
      const alice = unique('alice');
      const bob = unique('bob');
      const a1 = await cache().keyFor(basic(alice, 'pw'));
      const a2 = await cache().keyFor(basic(alice, 'old-pw'));
      const b = await cache().keyFor(basic(bob, 'pw'));
      await cache().put(a1, { username: alice, credentialVersion: 'v1' }, now(), TTL);
      await cache().put(a2, { username: alice, credentialVersion: 'v0' }, now(), TTL);
      await cache().put(b, { username: bob, credentialVersion: 'v1' }, now(), TTL);
      await cache().forgetUser(alice);
      expect(await cache().get(a1, now())).toBeNull();
      expect(await cache().get(a2, now())).toBeNull();
      expect(await cache().get(b, now())).toEqual({ username: bob, credentialVersion: 'v1' });
    });

    it('accepts forgetting a user it never saw, keeping everything else', async () => {
      const bob = unique('bob');
      const key = await cache().keyFor(basic(bob, 'pw'));
      await cache().put(key, { username: bob, credentialVersion: 'v1' }, now(), TTL);
      await cache().forgetUser(unique('ghost'));
      expect(await cache().get(key, now())).toEqual({ username: bob, credentialVersion: 'v1' });
    });
  });
}
