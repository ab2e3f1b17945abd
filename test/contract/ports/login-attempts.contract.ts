import type { AttemptLimit, LoginAttempts } from '../../../src/application/password/login-attempts';
import { unique, useAdapter, type AdapterFactory } from './harness';

const MAX = 3;
const LOCK_MS = 60_000;

/** The behaviour every LoginAttempts adapter must show. Time is a parameter of this port, so no clock is needed. */
export function loginAttemptsContract(name: string, makeAdapter: AdapterFactory<LoginAttempts>): void {
  describe(`LoginAttempts contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const attempts = (): LoginAttempts => subject.adapter();
    const now = (): number => subject.env().clock.now();
    const limit = (key: string, maxFailures = MAX): AttemptLimit => ({ key, maxFailures });

    /** Reserves `times` attempts one after the other; per attempt, the lock end it set (0: none) or -1 when refused. */
    async function reserveTimes(key: string, times: number, at: number): Promise<number[]> {
      const results: number[] = [];
      for (let i = 0; i < times; i += 1) {
        const r = await attempts().reserve([limit(key)], at, LOCK_MS);
        results.push(r.granted ? r.locksUntil[0] : -1);
      }
      return results;
    }

    it('reports an unknown key as not locked', async () => {
      expect(await attempts().lockedUntil(unique('account:nobody'), now())).toBe(0);
    });

    it('grants attempts up to the limit and does not lock before the last of them', async () => {
      const key = unique('account:alice');
      expect(await reserveTimes(key, MAX - 1, now())).toEqual([0, 0]);
      expect(await attempts().lockedUntil(key, now())).toBe(0);
    });

    it('locks for lockMs with the attempt that reaches the limit, and refuses further attempts with the lock end', async () => {
      const key = unique('account:alice');
      const results = await reserveTimes(key, MAX, now());
      expect(results[MAX - 1]).toBe(now() + LOCK_MS);
      expect(await attempts().lockedUntil(key, now())).toBe(now() + LOCK_MS);
      expect(await attempts().lockedUntil(key, now() + LOCK_MS - 1)).toBe(now() + LOCK_MS);
      expect(await attempts().reserve([limit(key)], now() + 1_000, LOCK_MS)).toEqual({ granted: false, lockedUntil: now() + LOCK_MS });
    });

    it('grants no more than the limit of simultaneous reservations', async () => {
      const key = unique('account:alice');
      const results = await Promise.all(Array.from({ length: 60 }, () => attempts().reserve([limit(key)], now(), LOCK_MS)));
      expect(results.filter((r) => r.granted)).toHaveLength(MAX);
      expect(results.filter((r) => r.granted && r.locksUntil[0] > 0)).toHaveLength(1);
      expect(results.filter((r) => !r.granted).every((r) => !r.granted && r.lockedUntil === now() + LOCK_MS)).toBe(true);
    });

    it('counts nothing against any key while one of them is locked', async () => {
      const account = unique('account:alice');
      const address = unique('address:198.51.100.1');
      await reserveTimes(address, MAX, now());
      expect(await attempts().reserve([limit(account), limit(address)], now(), LOCK_MS)).toEqual({ granted: false, lockedUntil: now() + LOCK_MS });
      expect(await reserveTimes(account, MAX - 1, now())).toEqual([0, 0]);
    });

    it('counts against every key of a reservation and says which ones it locked', async () => {
      const account = unique('account:alice');
      const address = unique('address:198.51.100.2');
      await reserveTimes(account, MAX - 1, now());
      const r = await attempts().reserve([limit(account), limit(address, 10)], now(), LOCK_MS);
      expect(r).toEqual({ granted: true, locksUntil: [now() + LOCK_MS, 0] });
      expect(await attempts().lockedUntil(account, now())).toBe(now() + LOCK_MS);
      expect(await attempts().lockedUntil(address, now())).toBe(0);
    });

    it('ignores a limit below 1', async () => {
      const key = unique('account:alice');
      for (let i = 0; i < 5; i += 1) expect(await attempts().reserve([limit(key, 0)], now(), LOCK_MS)).toEqual({ granted: true, locksUntil: [0] });
      expect(await attempts().lockedUntil(key, now())).toBe(0);
    });

    it('gives a reservation back on refund, so the limit counts failures only', async () => {
      const key = unique('account:alice');
      await reserveTimes(key, MAX - 1, now());
      await attempts().refund([limit(key)], now());
      expect(await reserveTimes(key, 1, now())).toEqual([0]);
      expect(await reserveTimes(key, 1, now())).toEqual([now() + LOCK_MS]);
    });

    it('lifts the lock set by a reservation that is refunded', async () => {
      const key = unique('account:alice');
      await reserveTimes(key, MAX, now());
      await attempts().refund([limit(key)], now());
      expect(await attempts().lockedUntil(key, now())).toBe(0);
      expect(await reserveTimes(key, 2, now())).toEqual([now() + LOCK_MS, -1]);
    });

    it('accepts a refund of a key it never saw, and does not go below zero', async () => {
      const key = unique('account:ghost');
      await expect(attempts().refund([limit(key)], now())).resolves.toBeUndefined();
      await reserveTimes(key, 1, now());
      await attempts().refund([limit(key)], now());
      await attempts().refund([limit(key)], now());
      expect(await reserveTimes(key, MAX, now())).toEqual([0, 0, now() + LOCK_MS]);
    });

    it('forgets the failures of a key on reset', async () => {
      const key = unique('account:alice');
      await reserveTimes(key, MAX, now());
      await attempts().reset(key);
      expect(await attempts().lockedUntil(key, now())).toBe(0);
      expect(await reserveTimes(key, MAX - 1, now())).toEqual([0, 0]);
    });

    it('accepts a reset of a key it never saw', async () => {
      await expect(attempts().reset(unique('account:ghost'))).resolves.toBeUndefined();
    });

    it('takes keys made of any characters (e-mails, IPv6 blocks, spaces, non-ASCII)', async () => {
      for (const base of ['account:jörg smith@example.com', 'address:2001:db8::/64', 'account:a:b:c']) {
        const key = unique(base);
        await reserveTimes(key, MAX, now());
        expect(await attempts().lockedUntil(key, now())).toBe(now() + LOCK_MS);
      }
    });

    it('honours the limit and lock length given with each reservation', async () => {
      const key = unique('address:198.51.100.1');
      for (let i = 0; i < 9; i += 1) expect(await attempts().reserve([limit(key, 10)], now(), 5_000)).toEqual({ granted: true, locksUntil: [0] });
      expect(await attempts().reserve([limit(key, 10)], now(), 5_000)).toEqual({ granted: true, locksUntil: [now() + 5_000] });
    });

    describe('over time', () => {
      it('lifts the lock once lockMs has passed', async () => {
        const key = unique('account:alice');
        await reserveTimes(key, MAX, now());
        expect(await attempts().lockedUntil(key, now() + LOCK_MS)).toBe(0);
        expect(await attempts().lockedUntil(key, now() + LOCK_MS + 1)).toBe(0);
      });

      it('starts counting afresh after a lock has expired', async () => {
        const key = unique('account:alice');
        await reserveTimes(key, MAX, now());
        const later = now() + LOCK_MS + 1;
        expect(await reserveTimes(key, MAX - 1, later)).toEqual([0, 0]);
        expect(await attempts().lockedUntil(key, later)).toBe(0);
      });

      it('forgets failures once lockMs passes without a new one', async () => {
        const key = unique('account:alice');
        await reserveTimes(key, MAX - 1, now());
        const later = now() + LOCK_MS + 1;
        expect(await reserveTimes(key, MAX - 1, later)).toEqual([0, 0]);
        expect(await attempts().lockedUntil(key, later)).toBe(0);
      });

      it('ignores a refund that arrives after its window ended', async () => {
        const key = unique('account:alice');
        await reserveTimes(key, MAX - 1, now());
        const later = now() + LOCK_MS + 1;
        await attempts().refund([limit(key)], later);
        expect(await reserveTimes(key, MAX, later)).toEqual([0, 0, later + LOCK_MS]);
      });
    });
  });
}
