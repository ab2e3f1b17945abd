import { InMemoryRevokedSessions } from '../../../src/adapters/state/memory/in-memory-revoked-sessions';
import { FixedClock } from '../../support/fakes';
import { revokedSessionsContract } from './revoked-sessions.contract';

revokedSessionsContract('InMemoryRevokedSessions', ({ clock }) => new InMemoryRevokedSessions(clock));

describe('InMemoryRevokedSessions', () => {
  it('never holds more than its capacity', async () => {
    const clock = new FixedClock();
    const revoked = new InMemoryRevokedSessions(clock, 10);
    for (let i = 0; i < 50; i += 1) await revoked.revoke(`s-${i}`, clock.now() + 60_000);
    expect(await revoked.isRevoked('s-49')).toBe(true);
    expect(await revoked.isRevoked('s-0')).toBe(false);
  });
});
