import type { AuditTrail, StoredAuditEvent } from '../../../src/application/ports/audit-trail';
import { auditEventId } from '../../../src/domain/audit-event-id';
import { unique, useAdapter, type AdapterFactory } from './harness';

/**
 * The behaviour every AuditTrail adapter must show (issue 36): what is appended comes back as it
 * was, newest first, filtered by person, event and time, paged without a gap or a repeat, and
 * forgotten once older than what prune is given. A shared backend holds other tests' events too,
 * so every query names a person of the test's own.
 */
export function auditTrailContract(name: string, makeAdapter: AdapterFactory<AuditTrail>): void {
  describe(`AuditTrail contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const trail = (): AuditTrail => subject.adapter();
    const now = (): number => subject.env().clock.now();
    let n = 0;
    const event = (over: Partial<StoredAuditEvent> & { time: number }): StoredAuditEvent => {
      n += 1;
      const username = over.username ?? null;
      return {
        id: auditEventId(over.time, `${n.toString(36).padStart(4, '0')}abcdef`),
        event: 'login_succeeded',
        login: null,
        admin: null,
        ip: '192.0.2.1',
        data: { event: over.event ?? 'login_succeeded', username, method: 'password' },
        ...over,
        username,
      };
    };

    it('gives back appended events exactly, newest first', async () => {
      const who = unique('ann');
      const a = event({ time: now() - 2000, username: who, data: { event: 'login_succeeded', username: who, method: 'password', ip: '192.0.2.1' } });
      const b = event({ time: now() - 1000, username: who, event: 'logout', ip: null, data: { event: 'logout', username: who, é: ['ü', 1, null] } });
      await trail().append([a, b]);
      expect(await trail().query({ username: who, limit: 10 })).toEqual({ events: [b, a], next: null });
    });

    it('finds a person by username, by the login they typed, or as the acting administrator', async () => {
      const who = unique('bob');
      const own = event({ time: now() - 3000, username: who });
      const typed = event({ time: now() - 2000, event: 'login_failed', login: who });
      const acted = event({ time: now() - 1000, event: 'sessions_revoked', username: unique('someone'), admin: who });
      await trail().append([own, typed, acted, event({ time: now(), username: unique('other') })]);
      expect((await trail().query({ username: who, limit: 10 })).events.map((e) => e.id)).toEqual([acted.id, typed.id, own.id]);
    });

    it('filters by event name and by time: since inclusive, before exclusive', async () => {
      const who = unique('cy');
      const t = now() - 10_000;
      const events = [0, 1000, 2000, 3000].map((d, i) => event({ time: t + d, username: who, event: i % 2 === 0 ? 'login_succeeded' : 'logout' }));
      await trail().append(events);
      const ids = async (q: Partial<Parameters<AuditTrail['query']>[0]>) => (await trail().query({ username: who, limit: 10, ...q })).events.map((e) => e.id);
      expect(await ids({ event: 'logout' })).toEqual([events[3].id, events[1].id]);
      expect(await ids({ since: t + 1000 })).toEqual([events[3].id, events[2].id, events[1].id]);
      expect(await ids({ before: t + 2000 })).toEqual([events[1].id, events[0].id]);
      expect(await ids({ since: t + 1000, before: t + 3000, event: 'login_succeeded' })).toEqual([events[2].id]);
      expect(await ids({ event: 'token_created' })).toEqual([]);
    });

    it('pages through every match once, in order, and says when there is no more', async () => {
      const who = unique('dee');
      const events = Array.from({ length: 7 }, (_, i) => event({ time: now() - 7000 + i * 1000, username: who }));
      // Appended out of order and in two batches: the order is the ids', not the appends'.
      await trail().append(events.slice(4));
      await trail().append(events.slice(0, 4).reverse());
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const got = await trail().query({ username: who, limit: 3, ...(after === undefined ? {} : { after }) });
        seen.push(...got.events.map((e) => e.id));
        if (got.next === null) break;
        expect(got.events).toHaveLength(3);
        after = got.next;
      }
      expect(seen).toEqual(events.map((e) => e.id).reverse());
    });

    it('answers next null when a page ends exactly at the last match', async () => {
      const who = unique('eve');
      await trail().append([event({ time: now() - 2000, username: who }), event({ time: now() - 1000, username: who })]);
      const page = await trail().query({ username: who, limit: 2 });
      expect(page.events).toHaveLength(2);
      expect(page.next).toBeNull();
    });

    it('keeps the first of two appends of one id', async () => {
      const who = unique('fay');
      const first = event({ time: now(), username: who });
      await trail().append([first]);
      await trail().append([{ ...first, event: 'logout', data: { changed: true } }]);
      expect((await trail().query({ username: who, limit: 10 })).events).toEqual([first]);
    });

    it('forgets events recorded before the time prune is given, and only those', async () => {
      const who = unique('gus');
      const old = event({ time: now() - 60_000, username: who });
      const edge = event({ time: now() - 30_000, username: who });
      const fresh = event({ time: now() - 1000, username: who });
      await trail().append([old, edge, fresh]);
      expect(await trail().prune(now() - 30_000)).toBeGreaterThanOrEqual(0);
      expect((await trail().query({ username: who, limit: 10 })).events.map((e) => e.id)).toEqual([fresh.id, edge.id]);
    });

    it('appends nothing for an empty batch', async () => {
      await expect(trail().append([])).resolves.toBeUndefined();
    });
  });
}
