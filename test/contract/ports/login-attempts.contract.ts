import type { LoginAttempts } from '../../../src/application/ports/login-attempts';
import { unique, useAdapter, type AdapterFactory } from './harness';

const MAX = 3;
const LOCK_MS = 60_000;

/** The behaviour every LoginAttempts adapter must show. Time is a parameter of this port, so no clock is needed. */
export function loginAttemptsContract(name: string, makeAdapter: AdapterFactory<LoginAttempts>): void {
  describe(`LoginAttempts contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const attempts = (): LoginAttempts => subject.adapter();
    const now = (): number => subject.env().clock.now();

    async function failTimes(key: string, times: number, at: number): Promise<number[]> {
      const results: number[] = [];
      for (let i = 0; i < times; i += 1) results.push(await attempts().recordFailure(key, at, MAX, LOCK_MS));
      return results;
    }

    it('reports an unknown key as not locked', async () => {
      expect(await attempts().lockedUntil(unique('account:nobody'), now())).toBe(0);
    });

    it('does not lock before the maximum number of failures', async () => {
      const key = unique('account:alice');
      expect(await failTimes(key, MAX - 1, now())).toEqual([0, 0]);
      expect(await attempts().lockedUntil(key, now())).toBe(0);
    });

    it('locks for lockMs on the failure that reaches the maximum', async () => {
      const key = unique('account:alice');
      const results = await failTimes(key, MAX, now());
      expect(results[MAX - 1]).toBe(now() + LOCK_MS);
      expect(await attempts().lockedUntil(key, now())).toBe(now() + LOCK_MS);
      expect(await attempts().lockedUntil(key, now() + LOCK_MS - 1)).toBe(now() + LOCK_MS);
    });

    it('lifts the lock once lockMs has passed', async () => {
      const key = unique('account:alice');
      await failTimes(key, MAX, now());
      expect(await attempts().lockedUntil(key, now() + LOCK_MS)).toBe(0);
      expect(await attempts().lockedUntil(key, now() + LOCK_MS + 1)).toBe(0);
    });

    it('starts counting afresh after a lock has expired', async () => {
      const key = unique('account:alice');
      await failTimes(key, MAX, now());
      const later = now() + LOCK_MS + 1;
      expect(await failTimes(key, MAX - 1, later)).toEqual([0, 0]);
      expect(await attempts().lockedUntil(key, later)).toBe(0);
    });

    it('forgets failures once lockMs passes without a new one', async () => {
      const key = unique('account:alice');
      await failTimes(key, MAX - 1, now());
      const later = now() + LOCK_MS + 1;
      expect(await attempts().recordFailure(key, later, MAX, LOCK_MS)).toBe(0);
      expect(await attempts().lockedUntil(key, later)).toBe(0);
    });

    it('counts failures of different keys separately', async () => {
      const a = unique('account:alice');
      const b = unique('account:bob');
      await failTimes(a, MAX - 1, now());
      await failTimes(b, MAX - 1, now());
      expect(await attempts().lockedUntil(a, now())).toBe(0);
      expect(await attempts().lockedUntil(b, now())).toBe(0);
      await attempts().recordFailure(a, now(), MAX, LOCK_MS);
      expect(await attempts().lockedUntil(a, now())).toBeGreaterThan(now());
      expect(await attempts().lockedUntil(b, now())).toBe(0);
    });

    it('forgets the failures of a key on reset', async () => {
      const key = unique('account:alice');
      await failTimes(key, MAX - 1, now());
      await attempts().reset(key);
      expect(await failTimes(key, MAX - 1, now())).toEqual([0, 0]);
      expect(await attempts().lockedUntil(key, now())).toBe(0);
    });

    it('accepts a reset of a key it never saw', async () => {
      await expect(attempts().reset(unique('account:ghost'))).resolves.toBeUndefined();
    });

    it('counts concurrent failures without losing any', async () => {
      const key = unique('address:203.0.113.9');
      const results = await Promise.all(Array.from({ length: MAX }, () => attempts().recordFailure(key, now(), MAX, LOCK_MS)));
      expect(results.filter((r) => r > 0)).toHaveLength(1);
      expect(await attempts().lockedUntil(key, now())).toBe(now() + LOCK_MS);
    });

    it('takes keys made of any characters (e-mails, IPv6 addresses, spaces, non-ASCII)', async () => {
      for (const base of ['account:jörg smith@example.com', 'address:::ffff:192.0.2.1', 'account:a:b:c']) {
        const key = unique(base);
        await failTimes(key, MAX, now());
        expect(await attempts().lockedUntil(key, now())).toBe(now() + LOCK_MS);
      }
    });

    it('honours the threshold and lock length given with each failure', async () => {
      const key = unique('address:198.51.100.1');
      for (let i = 0; i < 9; i += 1) expect(await attempts().recordFailure(key, now(), 10, 5_000)).toBe(0);
      expect(await attempts().recordFailure(key, now(), 10, 5_000)).toBe(now() + 5_000);
    });
  });
}
