import type { AccessTokens } from '../../../src/application/tokens/access-tokens';
import type { AccessTokenRecord } from '../../../src/domain/access-token';
import { unique, useAdapter, type AdapterFactory, type ContractEnv } from './harness';

const DAY = 24 * 3_600_000;

export interface AccessTokensContractOptions {
  /**
   * For a durable backend: a second store on the same storage as the one `makeAdapter` made in
   * this env, as after a restart (the factory closes the first one's connection where only one
   * may be open). Without it the test that reopens the store is not registered.
   */
  readonly reopen?: (env: ContractEnv) => AccessTokens | Promise<AccessTokens>;
}

/** The behaviour every AccessTokens adapter must show. */
export function accessTokensContract(name: string, makeAdapter: AdapterFactory<AccessTokens>, options: AccessTokensContractOptions = {}): void {
  describe(`AccessTokens contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const store = (): AccessTokens => subject.adapter();
    const now = (): number => subject.env().clock.now();
    const aToken = (username: string, over: Partial<AccessTokenRecord> = {}): AccessTokenRecord => ({
      id: unique('tok').replace(/[^A-Za-z0-9_-]/g, '_'),
      hash: unique('hash'),
      username,
      name: 'deploy bot',
      apps: ['grafana', 'wiki'],
      createdAt: now(),
      expiresAt: now() + 90 * DAY,
      lastUsedAt: null,
      revokedAt: null,
      ...over,
    });
    const find = async (hash: string): Promise<AccessTokenRecord | null> => store().findByHash(hash);

    it('names each account holding a live token once, and not one whose tokens all expired or were revoked', async () => {
      const [alice, expired, revoked] = [unique('alice'), unique('expired'), unique('revoked')];
      await store().add(aToken(alice));
      await store().add(aToken(alice));
      await store().add(aToken(expired, { createdAt: now() - 2 * DAY, expiresAt: now() - DAY }));
      const t = aToken(revoked);
      await store().add(t);
      expect(await store().revoke(revoked, t.id, now() - 1_000)).toBe(true);
      const accounts = await store().accounts(now());
      expect(accounts.filter((a) => a === alice)).toHaveLength(1);
      expect(accounts).not.toContain(expired);
      expect(accounts).not.toContain(revoked);
    });

    it('answers null for a hash it never stored', async () => {
      expect(await find(unique('hash'))).toBeNull();
    });

    it('finds a token it stored by its hash, field for field', async () => {
      const t = aToken(unique('alice'));
      await store().add(t);
      expect(await find(t.hash)).toEqual(t);
    });

    it('keeps "every application" (null) apart from a list, and a list in its order', async () => {
      const alice = unique('alice');
      const every = aToken(alice, { apps: null });
      const some = aToken(alice, { apps: ['wiki', 'grafana', 'ci.internal'] });
      const one = aToken(alice, { apps: ['wiki'] });
      for (const t of [every, some, one]) await store().add(t);
      expect((await find(every.hash))?.apps).toBeNull();
      expect((await find(some.hash))?.apps).toEqual(['wiki', 'grafana', 'ci.internal']);
      expect((await find(one.hash))?.apps).toEqual(['wiki']);
    });

    it('keeps the times it was given, last use and revocation included', async () => {
      const t = aToken(unique('alice'), { createdAt: now() - DAY, expiresAt: now() + DAY, lastUsedAt: now() - 3_600_000, revokedAt: now() - 60_000 });
      await store().add(t);
      expect(await find(t.hash)).toEqual(t);
    });

    it('still finds a token that has expired or been revoked (the caller decides what passes)', async () => {
      const alice = unique('alice');
      const expired = aToken(alice, { createdAt: now() - 2 * DAY, expiresAt: now() - DAY });
      const revoked = aToken(alice);
      await store().add(expired);
      await store().add(revoked);
      expect(await store().revoke(alice, revoked.id, now())).toBe(true);
      expect(await find(expired.hash)).toEqual(expired);
      expect(await find(revoked.hash)).toEqual({ ...revoked, revokedAt: now() });
    });

    it('lists an account’s tokens newest first, and only that account’s', async () => {
      const [alice, bob] = [unique('alice'), unique('bob')];
      const old = aToken(alice, { createdAt: now() - 2 * DAY, name: 'old' });
      const recent = aToken(alice, { createdAt: now() - DAY, name: 'recent' });
      const newest = aToken(alice, { createdAt: now(), name: 'newest' });
      for (const t of [recent, old, newest]) await store().add(t);
      await store().add(aToken(bob, { name: 'bob’s' }));
      expect((await store().list(alice)).map((t) => t.name)).toEqual(['newest', 'recent', 'old']);
      expect(await store().list(alice)).toEqual([newest, recent, old]);
      expect((await store().list(bob)).map((t) => t.name)).toEqual(['bob’s']);
      expect(await store().list(unique('nobody'))).toEqual([]);
    });

    it('orders tokens made in the same millisecond by id, the greater first', async () => {
      const alice = unique('alice');
      const a = aToken(alice, { id: `${unique('same')}-a` });
      const b = aToken(alice, { id: `${a.id.slice(0, -2)}-b` });
      await store().add(a);
      await store().add(b);
      expect((await store().list(alice)).map((t) => t.id)).toEqual([b.id, a.id]);
    });

    it('revokes the account’s own token once, and says false after', async () => {
      const alice = unique('alice');
      const t = aToken(alice);
      await store().add(t);
      expect(await store().revoke(alice, t.id, now())).toBe(true);
      expect((await find(t.hash))?.revokedAt).toBe(now());
      // A second revocation neither succeeds nor moves the time.
      expect(await store().revoke(alice, t.id, now() + 5_000)).toBe(false);
      expect((await find(t.hash))?.revokedAt).toBe(now());
      // Still listed, revoked, until pruned.
      expect(await store().list(alice)).toEqual([{ ...t, revokedAt: now() }]);
    });

    it('refuses to revoke another account’s token, or an id it does not know', async () => {
      const [alice, mallory] = [unique('alice'), unique('mallory')];
      const t = aToken(alice);
      await store().add(t);
      await store().add(aToken(mallory));
      expect(await store().revoke(mallory, t.id, now())).toBe(false);
      expect(await store().revoke(alice, unique('tok'), now())).toBe(false);
      expect(await store().revoke(unique('nobody'), t.id, now())).toBe(false);
      expect((await find(t.hash))?.revokedAt).toBeNull();
      expect(await store().revoke(alice, t.id, now())).toBe(true);
    });

    it('of two revocations of one token at once, grants exactly one', async () => {
      const alice = unique('alice');
      const t = aToken(alice);
      await store().add(t);
      const answers = await Promise.all([store().revoke(alice, t.id, now()), store().revoke(alice, t.id, now() + 1)]);
      expect(answers.filter((a) => a)).toHaveLength(1);
    });

    it('records the last use of a batch of tokens, and never moves it back', async () => {
      const alice = unique('alice');
      const [a, b, untouched] = [aToken(alice), aToken(alice), aToken(alice)];
      for (const t of [a, b, untouched]) await store().add(t);
      await store().touch(
        new Map([
          [a.hash, now() + 1_000],
          [b.hash, now() + 2_000],
        ]),
      );
      expect((await find(a.hash))?.lastUsedAt).toBe(now() + 1_000);
      expect((await find(b.hash))?.lastUsedAt).toBe(now() + 2_000);
      expect((await find(untouched.hash))?.lastUsedAt).toBeNull();
      // A batch written late (an older time) keeps the later one.
      await store().touch(
        new Map([
          [a.hash, now() + 500],
          [b.hash, now() + 3_000],
        ]),
      );
      expect((await find(a.hash))?.lastUsedAt).toBe(now() + 1_000);
      expect((await find(b.hash))?.lastUsedAt).toBe(now() + 3_000);
    });

    it('ignores a use of a token it does not hold (never makes a record), and an empty batch', async () => {
      const ghost = unique('hash');
      await store().touch(new Map([[ghost, now()]]));
      await store().touch(new Map());
      expect(await find(ghost)).toBeNull();
    });

    it('forgets tokens expired or revoked before the time given, and keeps the others', async () => {
      const alice = unique('alice');
      const before = now() - 30 * DAY;
      const expiredLongAgo = aToken(alice, { createdAt: before - 100 * DAY, expiresAt: before - 1 });
      const expiredJustAt = aToken(alice, { createdAt: before - 100 * DAY, expiresAt: before });
      const expiredRecently = aToken(alice, { createdAt: before - 10 * DAY, expiresAt: now() - DAY });
      const revokedLongAgo = aToken(alice, { createdAt: before - 10 * DAY });
      const revokedRecently = aToken(alice, { createdAt: before - 10 * DAY });
      const live = aToken(alice);
      for (const t of [expiredLongAgo, expiredJustAt, expiredRecently, revokedLongAgo, revokedRecently, live]) await store().add(t);
      expect(await store().revoke(alice, revokedLongAgo.id, before - DAY)).toBe(true);
      expect(await store().revoke(alice, revokedRecently.id, now() - DAY)).toBe(true);
      await store().prune(before);
      expect(await find(expiredLongAgo.hash)).toBeNull();
      expect(await find(revokedLongAgo.hash)).toBeNull();
      const kept = (await store().list(alice)).map((t) => t.id).sort();
      expect(kept).toEqual([expiredJustAt.id, expiredRecently.id, revokedRecently.id, live.id].sort());
      // A forgotten token's id can no longer be revoked; a later prune forgets the rest in turn.
      expect(await store().revoke(alice, revokedLongAgo.id, now())).toBe(false);
      await store().prune(now() + 91 * DAY);
      expect(await store().list(alice)).toEqual([]);
    });

    it('forgets a token revoked before the time given even though it expires after it', async () => {
      const alice = unique('alice');
      const t = aToken(alice, { revokedAt: now() - 2 * DAY });
      await store().add(t);
      await store().prune(now() - DAY);
      expect(await find(t.hash)).toBeNull();
      expect(await store().list(alice)).toEqual([]);
    });

    if (options.reopen !== undefined) {
      const reopen = options.reopen;
      it('keeps tokens, their revocation and their last use when opened again', async () => {
        const alice = unique('alice');
        const every = aToken(alice, { apps: null, createdAt: now() - 1_000 });
        const some = aToken(alice, { apps: ['wiki'] });
        await store().add(every);
        await store().add(some);
        await store().touch(new Map([[every.hash, now() + 10]]));
        expect(await store().revoke(alice, some.id, now() + 20)).toBe(true);
        const again = await reopen(subject.env());
        const expected = [
          { ...some, revokedAt: now() + 20 },
          { ...every, lastUsedAt: now() + 10 },
        ];
        expect(await again.list(alice)).toEqual(expected);
        expect(await again.findByHash(every.hash)).toEqual(expected[1]);
        expect(await again.revoke(alice, some.id, now() + 30)).toBe(false);
        expect(await again.revoke(alice, every.id, now() + 30)).toBe(true);
      });
    }
  });
}
