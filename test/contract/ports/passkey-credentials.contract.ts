import type { PasskeyCredentials } from '../../../src/application/passkeys/passkey-credentials';
import type { Passkey } from '../../../src/domain/passkey';
import { unique, useAdapter, type AdapterFactory } from './harness';

/** A passkey for `username` with a fresh id; `over` changes any field. */
export function aPasskey(username: string, over: Partial<Passkey> = {}): Passkey {
  return {
    id: unique('cred').replace(/[^A-Za-z0-9_-]/g, '_'),
    username,
    name: 'Laptop',
    publicKey: 'pQECAyYgASFYIB3kqvFjRbqXjZcAyCZtZ-pl2kpJr4M7sQk0OLEh8Ih0IlggSXsMcI_dnpTZsIyVqB8MRbprzFx1yplXNFCD4A9u7xs',
    counter: 0,
    transports: ['internal', 'hybrid'],
    createdAt: 1_760_000_000_000,
    lastUsedAt: null,
    ...over,
  };
}

/** The behaviour every PasskeyCredentials adapter must show. */
export function passkeyCredentialsContract(name: string, makeAdapter: AdapterFactory<PasskeyCredentials>): void {
  describe(`PasskeyCredentials contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const store = (): PasskeyCredentials => subject.adapter();

    it('finds a passkey it stored, field for field', async () => {
      const p = aPasskey(unique('alice'), { counter: 7, transports: ['usb'], lastUsedAt: null });
      expect(await store().add(p, 5)).toBe(true);
      expect(await store().find(p.id)).toEqual(p);
    });

    it('keeps an empty transport list empty', async () => {
      const p = aPasskey(unique('alice'), { transports: [] });
      await store().add(p, 5);
      expect((await store().find(p.id))?.transports).toEqual([]);
    });

    it('answers null for an unknown id', async () => {
      expect(await store().find(unique('nobody'))).toBeNull();
    });

    it('refuses a second passkey with an id already stored, even for another account', async () => {
      const p = aPasskey(unique('alice'));
      await store().add(p, 5);
      expect(await store().add({ ...p, username: unique('mallory'), publicKey: 'other' }, 5)).toBe(false);
      expect((await store().find(p.id))?.username).toBe(p.username);
    });

    it('lists the passkeys of one account only, oldest first', async () => {
      const alice = unique('alice');
      const second = aPasskey(alice, { createdAt: 2_000, name: 'Phone' });
      const first = aPasskey(alice, { createdAt: 1_000, name: 'Laptop' });
      await store().add(second, 5);
      await store().add(first, 5);
      await store().add(aPasskey(unique('bob')), 5);
      expect((await store().list(alice)).map((p) => p.name)).toEqual(['Laptop', 'Phone']);
      expect(await store().list(unique('nobody'))).toEqual([]);
    });

    it('refuses a passkey past the per-account limit', async () => {
      const alice = unique('alice');
      expect(await store().add(aPasskey(alice), 2)).toBe(true);
      expect(await store().add(aPasskey(alice), 2)).toBe(true);
      expect(await store().add(aPasskey(alice), 2)).toBe(false);
      expect(await store().list(alice)).toHaveLength(2);
    });

    it('renames a passkey for its owner only', async () => {
      const p = aPasskey(unique('alice'));
      await store().add(p, 5);
      expect(await store().rename(unique('mallory'), p.id, 'Mine now')).toBe(false);
      expect(await store().rename(p.username, p.id, 'Work laptop')).toBe(true);
      expect((await store().find(p.id))?.name).toBe('Work laptop');
      expect(await store().rename(p.username, unique('nothing'), 'x')).toBe(false);
    });

    it('removes a passkey for its owner only', async () => {
      const p = aPasskey(unique('alice'));
      await store().add(p, 5);
      expect(await store().remove(unique('mallory'), p.id)).toBe('not_found');
      expect(await store().find(p.id)).not.toBeNull();
      expect(await store().remove(p.username, p.id)).toBe('removed');
      expect(await store().find(p.id)).toBeNull();
      expect(await store().list(p.username)).toEqual([]);
      expect(await store().remove(p.username, p.id)).toBe('not_found');
    });

    it('keeps a passkey whose removal would leave the account fewer than asked', async () => {
      const alice = unique('alice');
      const [first, second] = [aPasskey(alice), aPasskey(alice)];
      await store().add(first, 5);
      await store().add(second, 5);
      expect(await store().remove(alice, first.id, 2)).toBe('kept');
      expect(await store().remove(alice, first.id, 1)).toBe('removed');
      expect(await store().remove(alice, second.id, 1)).toBe('kept');
      expect((await store().list(alice)).map((p) => p.id)).toEqual([second.id]);
      // Another account's passkey, or one that is gone, is not found whatever is asked to be kept.
      expect(await store().remove(unique('mallory'), second.id, 1)).toBe('not_found');
      expect(await store().remove(alice, first.id, 1)).toBe('not_found');
    });

    it('of two removals at once that would each leave the last passkey, keeps one', async () => {
      const alice = unique('alice');
      const held = [aPasskey(alice), aPasskey(alice)];
      for (const p of held) await store().add(p, 5);
      const answers = await Promise.all(held.map((p) => store().remove(alice, p.id, 1)));
      expect([...answers].sort()).toEqual(['kept', 'removed']);
      expect(await store().list(alice)).toHaveLength(1);
    });

    it('records a use while the counter is still the one expected', async () => {
      const p = aPasskey(unique('alice'), { counter: 3 });
      await store().add(p, 5);
      expect(await store().recordUse(p.id, 3, 4, 1_800_000_000_000)).toBe(true);
      expect(await store().find(p.id)).toMatchObject({ counter: 4, lastUsedAt: 1_800_000_000_000 });
    });

    it('refuses a use recorded against a counter that moved meanwhile', async () => {
      const p = aPasskey(unique('alice'), { counter: 3 });
      await store().add(p, 5);
      await store().recordUse(p.id, 3, 4, 1_000);
      expect(await store().recordUse(p.id, 3, 5, 2_000)).toBe(false);
      expect(await store().find(p.id)).toMatchObject({ counter: 4, lastUsedAt: 1_000 });
    });

    it('grants exactly one of several concurrent uses from one counter value', async () => {
      const p = aPasskey(unique('alice'), { counter: 10 });
      await store().add(p, 5);
      const answers = await Promise.all([11, 12, 13].map((c) => store().recordUse(p.id, 10, c, 5_000)));
      expect(answers.filter((a) => a)).toHaveLength(1);
    });

    it('keeps recording uses of an authenticator that always reports 0', async () => {
      const p = aPasskey(unique('alice'), { counter: 0 });
      await store().add(p, 5);
      expect(await store().recordUse(p.id, 0, 0, 1_000)).toBe(true);
      expect(await store().recordUse(p.id, 0, 0, 2_000)).toBe(true);
      expect((await store().find(p.id))?.lastUsedAt).toBe(2_000);
    });

    it('refuses a use of a passkey that is gone', async () => {
      expect(await store().recordUse(unique('gone'), 0, 1, 1_000)).toBe(false);
    });

    it('handles a long credential id', async () => {
      const p = aPasskey(unique('alice'), { id: 'A'.repeat(600) + unique('x').replace(/[^A-Za-z0-9]/g, '') });
      expect(await store().add(p, 5)).toBe(true);
      expect((await store().find(p.id))?.id).toBe(p.id);
      expect((await store().list(p.username)).map((x) => x.id)).toEqual([p.id]);
    });
  });
}
