import type { RevokedSessions } from '../../../src/application/ports/revoked-sessions';
import { unique, useAdapter, type AdapterFactory, type ContractOptions } from './harness';

const HOUR = 3_600_000;

/** The behaviour every RevokedSessions adapter must show. */
export function revokedSessionsContract(name: string, makeAdapter: AdapterFactory<RevokedSessions>, options: ContractOptions = {}): void {
  describe(`RevokedSessions contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const revoked = (): RevokedSessions => subject.adapter();
    const now = (): number => subject.env().clock.now();

    it('reports a session it was never told about as not revoked', async () => {
      expect(await revoked().isRevoked(unique('session'))).toBe(false);
    });

    it('reports a revoked session as revoked until its expiry', async () => {
      const id = unique('session');
      await revoked().revoke(id, now() + HOUR);
      expect(await revoked().isRevoked(id)).toBe(true);
    });

    it('revokes only the session it is told about', async () => {
      const id = unique('session');
      const other = unique('session');
      await revoked().revoke(id, now() + HOUR);
      expect(await revoked().isRevoked(other)).toBe(false);
    });

    it('accepts revoking the same session twice', async () => {
      const id = unique('session');
      await revoked().revoke(id, now() + HOUR);
      await revoked().revoke(id, now() + HOUR);
      expect(await revoked().isRevoked(id)).toBe(true);
    });

    it('does not keep a revocation whose session has already expired', async () => {
      const id = unique('session');
      await revoked().revoke(id, now() - 1_000);
      expect(await revoked().isRevoked(id)).toBe(false);
    });

    it('keeps many revocations apart', async () => {
      const ids = Array.from({ length: 50 }, () => unique('session'));
      await Promise.all(ids.map((id) => revoked().revoke(id, now() + HOUR)));
      const answers = await Promise.all(ids.map((id) => revoked().isRevoked(id)));
      expect(answers.every((a) => a)).toBe(true);
    });

    if (options.followsClock !== false) {
      it('forgets a revocation once the session would have expired', async () => {
        const id = unique('session');
        await revoked().revoke(id, now() + HOUR);
        subject.env().clock.advance(HOUR - 1);
        expect(await revoked().isRevoked(id)).toBe(true);
        subject.env().clock.advance(1);
        expect(await revoked().isRevoked(id)).toBe(false);
      });
    }
  });
}
