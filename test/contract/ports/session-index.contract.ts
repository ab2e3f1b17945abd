import type { IndexedSession, SessionIndex } from '../../../src/application/ports/session-index';
import { unique, useAdapter, type AdapterFactory, type ContractOptions } from './harness';

const HOUR = 3_600_000;

/** The behaviour every SessionIndex adapter must show. */
export function sessionIndexContract(name: string, makeAdapter: AdapterFactory<SessionIndex>, options: ContractOptions = {}): void {
  describe(`SessionIndex contract: ${name}`, () => {
    const subject = useAdapter(makeAdapter);
    const index = (): SessionIndex => subject.adapter();
    const now = (): number => subject.env().clock.now();
    const aSession = (username: string, extra: Partial<IndexedSession> = {}): IndexedSession => ({
      id: unique('session'),
      username,
      method: 'password',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/130.0.0.0',
      address: '192.0.2.7',
      startedAt: now(),
      expiresAt: now() + HOUR,
      lastSeenAt: now(),
      ...extra,
    });

    it('lists nothing for an account it was never told about', async () => {
      expect(await index().list(unique('nobody'))).toEqual([]);
    });

    it('lists a registered session with everything it was told', async () => {
      const user = unique('alice');
      const s = aSession(user, { method: 'totp', address: '2001:db8::1' });
      await index().register(s);
      expect(await index().list(user)).toEqual([s]);
    });

    it('keeps accounts apart: one account never lists another one’s sessions', async () => {
      const [alice, bob] = [unique('alice'), unique('bob')];
      const mine = aSession(alice);
      await index().register(mine);
      await index().register(aSession(bob));
      expect((await index().list(alice)).map((s) => s.id)).toEqual([mine.id]);
    });

    it('compares account names without regard to case', async () => {
      const user = unique('Carol');
      const s = aSession(user);
      await index().register(s);
      expect((await index().list(user.toUpperCase())).map((x) => x.id)).toEqual([s.id]);
    });

    it('lists the newest session first', async () => {
      const user = unique('dave');
      const older = aSession(user, { startedAt: now() - 60_000 });
      const newer = aSession(user);
      await index().register(older);
      await index().register(newer);
      expect((await index().list(user)).map((s) => s.id)).toEqual([newer.id, older.id]);
    });

    it('does not list a session that has expired', async () => {
      const user = unique('erin');
      await index().register(aSession(user, { startedAt: now() - 2 * HOUR, expiresAt: now() - 1_000 }));
      expect(await index().list(user)).toEqual([]);
    });

    it('names each account with an unexpired session once, lower-cased, and not one whose sessions all expired', async () => {
      const [alice, gone] = [unique('Alice'), unique('gone')];
      await index().register(aSession(alice));
      await index().register(aSession(alice.toUpperCase()));
      await index().register(aSession(gone, { startedAt: now() - 2 * HOUR, expiresAt: now() - 1_000 }));
      const accounts = await index().accounts();
      expect(accounts.filter((a) => a === alice.toLowerCase())).toHaveLength(1);
      expect(accounts).not.toContain(alice);
      expect(accounts).not.toContain(gone.toLowerCase());
    });

    it('moves last seen forward, never back, and ignores unknown sessions', async () => {
      const user = unique('frank');
      const s = aSession(user);
      await index().register(s);
      await index().touch([
        { id: s.id, at: now() + 120_000 },
        { id: unique('session'), at: now() },
      ]);
      await index().touch([{ id: s.id, at: now() + 60_000 }]);
      expect((await index().list(user))[0].lastSeenAt).toBe(now() + 120_000);
    });

    it('tells one session’s last seen, as the latest touch moved it, to any caller', async () => {
      const s = aSession(unique('ivy'), { lastSeenAt: now() - 5_000 });
      await index().register(s);
      expect(await index().lastSeen(s.id)).toBe(now() - 5_000);
      await index().touch([{ id: s.id, at: now() + 30_000 }]);
      await index().touch([{ id: s.id, at: now() + 10_000 }]);
      expect(await index().lastSeen(s.id)).toBe(now() + 30_000);
    });

    it('knows no last seen for a session it was never told of, or one that expired', async () => {
      expect(await index().lastSeen(unique('session'))).toBeNull();
      const gone = aSession(unique('jack'), { startedAt: now() - 2 * HOUR, expiresAt: now() - 1_000 });
      await index().register(gone);
      expect(await index().lastSeen(gone.id)).toBeNull();
    });

    it('keeps many sessions of one account', async () => {
      const user = unique('gina');
      const all = Array.from({ length: 30 }, (_, i) => aSession(user, { startedAt: now() - i }));
      await Promise.all(all.map((s) => index().register(s)));
      expect((await index().list(user)).map((s) => s.id)).toEqual(all.map((s) => s.id));
    });

    if (options.followsClock !== false) {
      it('stops listing a session once it expires', async () => {
        const user = unique('hank');
        await index().register(aSession(user));
        subject.env().clock.advance(HOUR - 1);
        expect(await index().list(user)).toHaveLength(1);
        subject.env().clock.advance(1);
        expect(await index().list(user)).toEqual([]);
      });
    }
  });
}
