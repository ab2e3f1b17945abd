import type { LogoutDeliveries } from '../../../src/application/oidc/logout-deliveries';
import type { LogoutDelivery } from '../../../src/domain/backchannel-logout';
import { unique, useAdapter, type AdapterFactory } from './harness';

/**
 * The behaviour every LogoutDeliveries adapter must show (issue 35): what is queued comes back as
 * queued, only when due, once per lease even to concurrent claims, and again after a retry or a
 * lease that ran out; removed is gone.
 */
export function logoutDeliveriesContract(name: string, makeAdapter: AdapterFactory<LogoutDeliveries>): void {
  describe(`LogoutDeliveries contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const queue = (): LogoutDeliveries => subject.adapter();
    // Each test sees its own deliveries only: a shared backend may hold others' due ones, so claims are filtered by id.
    const now = (): number => subject.env().clock.now();
    const delivery = (over: Partial<LogoutDelivery> = {}): LogoutDelivery => ({
      id: unique('delivery'),
      clientId: 'app',
      subject: unique('sub'),
      sid: unique('sid'),
      createdAt: now(),
      attempts: 0,
      dueAt: now(),
      ...over,
    });
    const claimOf = async (ids: readonly string[], at: number, leaseMs = 30_000, limit = 1000): Promise<LogoutDelivery[]> =>
      (await queue().claim(at, leaseMs, limit)).filter((d) => ids.includes(d.id));

    it('gives back a due delivery exactly as it was queued', async () => {
      const d = delivery({ sid: null, clientId: 'client-é', attempts: 2 });
      await queue().add(d);
      expect(await claimOf([d.id], now())).toEqual([d]);
    });

    it('keeps a delivery that is not due yet until it is', async () => {
      const d = delivery({ dueAt: now() + 5_000 });
      await queue().add(d);
      expect(await claimOf([d.id], now())).toEqual([]);
      expect(await claimOf([d.id], now() + 5_000)).toEqual([d]);
    });

    it('hands a claimed delivery to no one else until its lease ends, then again', async () => {
      const d = delivery();
      await queue().add(d);
      expect(await claimOf([d.id], now(), 10_000)).toHaveLength(1);
      expect(await claimOf([d.id], now() + 9_999)).toEqual([]);
      expect(await claimOf([d.id], now() + 10_000)).toEqual([d]);
    });

    it('gives each delivery to exactly one of several concurrent claims', async () => {
      const ds = Array.from({ length: 6 }, () => delivery());
      for (const d of ds) await queue().add(d);
      const ids = ds.map((d) => d.id);
      const claims = await Promise.all(Array.from({ length: 4 }, () => claimOf(ids, now())));
      const claimed = claims.flat().map((d) => d.id);
      expect(claimed.sort()).toEqual([...ids].sort());
    });

    it('claims the earliest due first, at most `limit`', async () => {
      const late = delivery({ dueAt: now() - 1_000 });
      const early = delivery({ dueAt: now() - 2_000 });
      await queue().add(late);
      await queue().add(early);
      const first = await queue().claim(now(), 30_000, 1);
      expect(first).toHaveLength(1);
      // Other tests' deliveries on a shared backend may be earlier still; ours come in order.
      const ours = [...first, ...(await queue().claim(now(), 30_000, 1000))].filter((d) => d.id === early.id || d.id === late.id);
      expect(ours.map((d) => d.id)).toEqual([early.id, late.id]);
    });

    it('schedules a retry: the lease ends, the attempts and due time are the new ones', async () => {
      const d = delivery();
      await queue().add(d);
      await claimOf([d.id], now());
      await queue().retry(d.id, 1, now() + 2_000);
      expect(await claimOf([d.id], now() + 1_999)).toEqual([]);
      expect(await claimOf([d.id], now() + 2_000)).toEqual([{ ...d, attempts: 1, dueAt: now() + 2_000 }]);
    });

    it('forgets a removed delivery, and removing twice is fine', async () => {
      const d = delivery();
      await queue().add(d);
      await queue().remove(d.id);
      await queue().remove(d.id);
      expect(await claimOf([d.id], now() + 60_000)).toEqual([]);
    });

    it('changes nothing when the same id is queued again', async () => {
      const d = delivery();
      await queue().add(d);
      await queue().add({ ...d, clientId: 'other', dueAt: now() + 60_000 });
      expect(await claimOf([d.id], now())).toEqual([d]);
    });
  });
}
