import type { RevokedSessions } from '../../../src/application/ports/revoked-sessions';
import { FixedClock } from '../../support/fakes';

/** The RevokedSessions contract; `make` gives a fresh, empty store reading time from `clock`. */
export function revokedSessionsContract(name: string, make: (clock: FixedClock) => Promise<RevokedSessions> | RevokedSessions): void {
  describe(`RevokedSessions contract: ${name}`, () => {
    let clock: FixedClock;
    let store: RevokedSessions;
    beforeEach(async () => {
      clock = new FixedClock();
      store = await make(clock);
    });

    it('reports a session that was never revoked as live', async () => {
      expect(await store.isRevoked('s-1')).toBe(false);
    });

    it('reports a revoked session as revoked, and only that one', async () => {
      await store.revoke('s-1', clock.now() + 60_000);
      expect(await store.isRevoked('s-1')).toBe(true);
      expect(await store.isRevoked('s-2')).toBe(false);
    });

    it('may forget a revocation once the session would have expired anyway', async () => {
      await store.revoke('s-1', clock.now() + 60_000);
      clock.advance(60_000);
      expect(await store.isRevoked('s-1')).toBe(false);
    });

    it('takes a second revocation of the same session in its stride', async () => {
      await store.revoke('s-1', clock.now() + 60_000);
      await store.revoke('s-1', clock.now() + 60_000);
      expect(await store.isRevoked('s-1')).toBe(true);
    });
  });
}
