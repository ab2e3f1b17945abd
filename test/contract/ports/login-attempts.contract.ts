import type { LoginAttempts } from '../../../src/application/ports/login-attempts';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const LOCK = 60_000;

/** The LoginAttempts contract; every adapter runs it. `make` gives a fresh, empty store. */
export function loginAttemptsContract(name: string, make: () => Promise<LoginAttempts> | LoginAttempts): void {
  describe(`LoginAttempts contract: ${name}`, () => {
    let store: LoginAttempts;
    beforeEach(async () => {
      store = await make();
    });

    it('reports an unknown key as not locked', async () => {
      expect(await store.lockedUntil('account:nobody', T0)).toBe(0);
    });

    it('stays unlocked below the threshold and locks on the failure that reaches it', async () => {
      expect(await store.recordFailure('account:a', T0, 3, LOCK)).toBe(0);
      expect(await store.recordFailure('account:a', T0 + 1, 3, LOCK)).toBe(0);
      expect(await store.recordFailure('account:a', T0 + 2, 3, LOCK)).toBe(T0 + 2 + LOCK);
      expect(await store.lockedUntil('account:a', T0 + 3)).toBe(T0 + 2 + LOCK);
    });

    it('ends the lock when its time is up', async () => {
      for (let i = 0; i < 2; i += 1) await store.recordFailure('account:a', T0, 2, LOCK);
      expect(await store.lockedUntil('account:a', T0 + LOCK - 1)).toBe(T0 + LOCK);
      expect(await store.lockedUntil('account:a', T0 + LOCK)).toBe(0);
    });

    it('forgets failures older than the lock time', async () => {
      await store.recordFailure('account:a', T0, 3, LOCK);
      await store.recordFailure('account:a', T0, 3, LOCK);
      expect(await store.recordFailure('account:a', T0 + LOCK + 1, 3, LOCK)).toBe(0);
      expect(await store.lockedUntil('account:a', T0 + LOCK + 2)).toBe(0);
    });

    it('forgets failures on reset', async () => {
      await store.recordFailure('account:a', T0, 2, LOCK);
      await store.reset('account:a');
      expect(await store.recordFailure('account:a', T0, 2, LOCK)).toBe(0);
    });

    it('never locks when the threshold is 0', async () => {
      for (let i = 0; i < 5; i += 1) expect(await store.recordFailure('account:a', T0, 0, LOCK)).toBe(0);
      expect(await store.lockedUntil('account:a', T0)).toBe(0);
    });

    it('keeps keys apart', async () => {
      await store.recordFailure('account:a', T0, 1, LOCK);
      expect(await store.lockedUntil('account:b', T0)).toBe(0);
      expect(await store.lockedUntil('address:a', T0)).toBe(0);
    });

    it('locks exactly once when the threshold is reached by concurrent failures', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => store.recordFailure('account:c', T0, 5, LOCK)));
      expect(results.filter((r) => r > 0)).toEqual([T0 + LOCK]);
      expect(await store.lockedUntil('account:c', T0)).toBe(T0 + LOCK);
    });

    it('accepts very long keys (typed by a client) without confusing them', async () => {
      const long = `account:${'x'.repeat(5000)}`;
      await store.recordFailure(long, T0, 1, LOCK);
      expect(await store.lockedUntil(long, T0)).toBe(T0 + LOCK);
      expect(await store.lockedUntil(`${long}y`, T0)).toBe(0);
    });
  });
}
