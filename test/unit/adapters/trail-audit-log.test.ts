import { TrailAuditLog, type TrailAuditLogOptions } from '../../../src/adapters/system/trail-audit-log';
import type { AuditEvent } from '../../../src/application/ports/audit-log';
import type { AuditTrail, AuditTrailPage, StoredAuditEvent } from '../../../src/application/ports/audit-trail';
import { AUDIT_EVENT_ID } from '../../../src/domain/audit-event-id';
import { FixedClock } from '../../support/fakes';
import { TestLogger } from '../../support/loggers';

/** A trail whose writes the test holds in hand: each append is recorded, and fails while `down`. */
class ScriptedTrail implements AuditTrail {
  readonly batches: StoredAuditEvent[][] = [];
  readonly pruned: number[] = [];
  down = false;
  private waiters: Array<() => void> = [];

  async append(events: readonly StoredAuditEvent[]): Promise<void> {
    if (this.down) throw new Error('store down');
    this.batches.push([...events]);
    for (const w of this.waiters.splice(0)) w();
  }
  async query(): Promise<AuditTrailPage> {
    return { events: this.batches.flat(), next: null };
  }
  async prune(olderThan: number): Promise<number> {
    if (this.down) throw new Error('store down');
    this.pruned.push(olderThan);
    return 0;
  }
  /** Resolves at the next successful append. */
  appended(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
  get written(): StoredAuditEvent[] {
    return this.batches.flat();
  }
}

const login = (username: string): AuditEvent => ({ event: 'login_succeeded', username, method: 'password', ip: '192.0.2.7', requestId: 'r-1' });

function setUp(over: Partial<TrailAuditLogOptions> = {}) {
  const trail = new ScriptedTrail();
  const clock = new FixedClock(Date.UTC(2026, 11, 1, 12));
  const warnings: string[] = [];
  const logger = new TestLogger('info', (line) => warnings.push((JSON.parse(line) as { msg: string }).msg));
  const drops: number[] = [];
  const log = new TrailAuditLog(trail, { clock, logger, retentionMs: 30 * 86_400_000, dropped: (n) => drops.push(n), flushMs: 60_000, ...over });
  return { trail, clock, log, warnings, drops };
}

describe('TrailAuditLog', () => {
  it('only queues on record; a flush writes each event with its person fields copied out and the event kept whole', async () => {
    const { trail, log, clock } = setUp();
    log.record(login('ann'));
    log.record({ event: 'login_failed', login: 'bob', method: 'password', ip: '192.0.2.8', reason: 'invalid_credentials' });
    log.record({ event: 'sessions_revoked', username: 'tom', scope: 'all', count: 2, by: 'admin', admin: 'root' });
    log.record({ event: 'admin_refused', username: '', ip: '192.0.2.9', reason: 'admin_required' });
    expect(trail.batches).toEqual([]);
    expect(log.pending).toBe(4);
    await log.flush();
    expect(trail.written.map((e) => ({ ...e, id: 'x' }))).toEqual([
      { id: 'x', time: clock.now(), event: 'login_succeeded', username: 'ann', login: null, admin: null, ip: '192.0.2.7', data: login('ann') },
      {
        id: 'x',
        time: clock.now(),
        event: 'login_failed',
        username: null,
        login: 'bob',
        admin: null,
        ip: '192.0.2.8',
        data: { event: 'login_failed', login: 'bob', method: 'password', ip: '192.0.2.8', reason: 'invalid_credentials' },
      },
      {
        id: 'x',
        time: clock.now(),
        event: 'sessions_revoked',
        username: 'tom',
        login: null,
        admin: 'root',
        ip: null,
        data: { event: 'sessions_revoked', username: 'tom', scope: 'all', count: 2, by: 'admin', admin: 'root' },
      },
      // An anonymous refusal names nobody (not the empty name).
      { id: 'x', time: clock.now(), event: 'admin_refused', username: null, login: null, admin: null, ip: '192.0.2.9', data: expect.any(Object) },
    ]);
    expect(log.pending).toBe(0);
  });

  it('gives events of one millisecond distinct ids that sort in the order they were recorded', async () => {
    const { trail, log } = setUp();
    for (let i = 0; i < 50; i += 1) log.record(login(`u${i}`));
    await log.flush();
    const ids = trail.written.map((e) => e.id);
    expect(ids.every((id) => AUDIT_EVENT_ID.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(50);
    expect([...ids].sort()).toEqual(ids);
  });

  it('writes in batches of at most `batch` events, oldest first', async () => {
    const { trail, log } = setUp({ batch: 3 });
    for (let i = 0; i < 7; i += 1) log.record(login(`u${i}`));
    await log.flush();
    expect(trail.batches.map((b) => b.map((e) => e.username))).toEqual([['u0', 'u1', 'u2'], ['u3', 'u4', 'u5'], ['u6']]);
  });

  it('writes on its own within flushMs of a record', async () => {
    const { trail, log } = setUp({ flushMs: 5 });
    const written = trail.appended();
    log.record(login('ann'));
    await written;
    expect(trail.written.map((e) => e.username)).toEqual(['ann']);
    await log.close();
  });

  it('writes a full batch at once, without waiting for flushMs', async () => {
    const { trail, log } = setUp({ flushMs: 3_600_000, batch: 2 });
    const written = trail.appended();
    log.record(login('ann'));
    log.record(login('bob'));
    await written;
    expect(trail.written.map((e) => e.username)).toEqual(['ann', 'bob']);
    await log.close();
  });

  it('keeps the events of a failed write, in order, and writes them once the store is back; warns once per outage', async () => {
    const { trail, log, warnings, drops } = setUp();
    trail.down = true;
    log.record(login('ann'));
    await log.flush();
    log.record(login('bob'));
    await log.flush();
    expect(log.pending).toBe(2);
    expect(warnings.filter((w) => w.startsWith('audit trail write failed'))).toHaveLength(1);
    trail.down = false;
    await log.flush();
    expect(trail.written.map((e) => e.username)).toEqual(['ann', 'bob']);
    expect(warnings).toContain('audit trail writes again');
    expect(drops).toEqual([]);
    await log.close();
  });

  it('holds at most `capacity` events while the store is down: the oldest go, and each drop is counted', async () => {
    const { trail, log, drops } = setUp({ capacity: 3 });
    trail.down = true;
    for (const name of ['a', 'b', 'c', 'd', 'e']) log.record(login(name));
    await log.flush();
    expect(log.pending).toBe(3);
    expect(drops.reduce((x, y) => x + y, 0)).toBe(2);
    trail.down = false;
    await log.flush();
    expect(trail.written.map((e) => e.username)).toEqual(['c', 'd', 'e']);
    await log.close();
  });

  it('never throws from record, even when the clock does', () => {
    const { log } = setUp({
      clock: {
        now: () => {
          throw new Error('no time');
        },
      },
    });
    expect(() => log.record(login('ann'))).not.toThrow();
    expect(log.pending).toBe(0);
  });

  it('writes what is left when closed', async () => {
    const { trail, log } = setUp();
    log.record(login('ann'));
    await log.close();
    expect(trail.written.map((e) => e.username)).toEqual(['ann']);
  });

  it('prunes what is older than the retention at start, and logs a failed prune without throwing', async () => {
    const { trail, log, clock, warnings } = setUp({ retentionMs: 86_400_000 });
    await log.prune();
    expect(trail.pruned).toEqual([clock.now() - 86_400_000]);
    trail.down = true;
    await expect(log.prune()).resolves.toBeUndefined();
    expect(warnings).toContain('audit trail prune failed: tried again later');
  });

  it('with a retention of 0 records nothing, and its prune empties the trail', async () => {
    const { trail, log, clock } = setUp({ retentionMs: 0 });
    log.record(login('ann'));
    expect(log.pending).toBe(0);
    await log.flush();
    expect(trail.batches).toEqual([]);
    await log.prune();
    expect(trail.pruned).toEqual([clock.now()]);
  });
});
