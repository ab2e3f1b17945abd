import { InMemoryLogoutDeliveries } from '../../../src/adapters/state/memory/in-memory-logout-deliveries';
import { logoutDeliveriesContract } from './logout-deliveries.contract';

logoutDeliveriesContract('InMemoryLogoutDeliveries', () => new InMemoryLogoutDeliveries());

describe('InMemoryLogoutDeliveries', () => {
  it('never holds more than its capacity: the oldest deliveries go first', async () => {
    const queue = new InMemoryLogoutDeliveries(3);
    for (let i = 0; i < 5; i += 1) await queue.add({ id: `d-${i}`, clientId: 'app', subject: 's', sid: null, createdAt: 0, attempts: 0, dueAt: 0 });
    expect((await queue.claim(1, 1000, 10)).map((d) => d.id)).toEqual(['d-2', 'd-3', 'd-4']);
  });
});
