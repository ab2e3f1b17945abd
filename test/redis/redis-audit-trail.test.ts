import { RedisAuditTrail } from '../../src/adapters/state/redis/redis-audit-trail';
import { auditEventId } from '../../src/domain/audit-event-id';
import { auditTrailContract } from '../contract/ports/audit-trail.contract';
import { sharedRedis } from './support/shared-redis';

const { connect, perTest } = sharedRedis('au');

auditTrailContract('RedisAuditTrail', async (env) => new RedisAuditTrail(await perTest(env)));

const eventAt = (time: number, n: number, username = 'ann') => ({
  id: auditEventId(time, `${n}`.padStart(10, '0')),
  time,
  event: 'login_succeeded',
  username,
  login: null,
  admin: null,
  ip: '192.0.2.1',
  data: { event: 'login_succeeded', username },
});

describe('RedisAuditTrail', () => {
  it('holds at most its capacity: each append drops the oldest, in the index and the events alike', async () => {
    const c = await connect();
    const trail = new RedisAuditTrail(c, 5);
    const t = Date.now();
    await trail.append(Array.from({ length: 4 }, (_, i) => eventAt(t + i, i)));
    await trail.append(Array.from({ length: 4 }, (_, i) => eventAt(t + 10 + i, 10 + i)));
    expect((await trail.query({ limit: 10 })).events.map((e) => e.time)).toEqual([13, 12, 11, 10, 3].map((d) => t + d));
    expect(await c.run((r) => r.hlen(`${c.prefix}audit:events`))).toBe(5);
    expect(await c.run((r) => r.zcard(`${c.prefix}audit:ids`))).toBe(5);
  });

  it('finds one person among more events than one read takes, and prunes past one step', async () => {
    const c = await connect();
    const trail = new RedisAuditTrail(c);
    const t = Date.now() - 10_000;
    await trail.append(Array.from({ length: 2500 }, (_, i) => eventAt(t + i, i, i % 1000 === 7 ? 'rare' : 'many')));
    const page = await trail.query({ username: 'rare', limit: 2 });
    expect(page.events.map((e) => e.time)).toEqual([t + 2007, t + 1007]);
    expect((await trail.query({ username: 'rare', limit: 2, after: page.next! })).events.map((e) => e.time)).toEqual([t + 7]);
    expect(await trail.prune(t + 2400)).toBe(2400);
    expect(await c.run((r) => r.hlen(`${c.prefix}audit:events`))).toBe(100);
  });
});
