import { InMemoryAuditTrail } from '../../../src/adapters/state/memory/in-memory-audit-trail';
import { auditEventId } from '../../../src/domain/audit-event-id';
import { auditTrailContract } from './audit-trail.contract';

auditTrailContract('InMemoryAuditTrail', () => new InMemoryAuditTrail());

describe('InMemoryAuditTrail', () => {
  it('never holds more than its capacity: the oldest events go first', async () => {
    const trail = new InMemoryAuditTrail(3);
    const events = [1, 2, 3, 4, 5].map((t) => ({
      id: auditEventId(t * 1000, 'x'),
      time: t * 1000,
      event: 'logout',
      username: 'ann',
      login: null,
      admin: null,
      ip: null,
      data: {},
    }));
    await trail.append(events);
    expect((await trail.query({ limit: 10 })).events.map((e) => e.time)).toEqual([5000, 4000, 3000]);
  });
});
