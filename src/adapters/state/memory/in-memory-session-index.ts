import type { Clock } from '../../../application/ports/clock';
import type { IndexedSession, SessionIndex, SessionSighting } from '../../../application/ports/session-index';

/**
 * The session index in this process (no durable store configured): lost at a restart, like the
 * in-memory revocations it works with. Never holds more than `capacity` sessions: registering into
 * a full index forgets the oldest registration (and a sweep every 1024 registrations returns the
 * memory of expired ones early).
 */
export class InMemorySessionIndex implements SessionIndex {
  private readonly byId = new Map<string, IndexedSession>();
  private readonly byAccount = new Map<string, Set<string>>();
  private writes = 0;

  constructor(
    private readonly clock: Clock,
    private readonly capacity = 100_000,
  ) {}

  async register(session: IndexedSession): Promise<void> {
    if (++this.writes % 1024 === 0) this.sweep(this.clock.now());
    const entry = { ...session, username: session.username.toLowerCase() };
    this.forget(entry.id);
    if (this.byId.size >= this.capacity) {
      const oldest = this.byId.keys().next();
      if (!oldest.done) this.forget(oldest.value);
    }
    this.byId.set(entry.id, entry);
    let ids = this.byAccount.get(entry.username);
    if (ids === undefined) this.byAccount.set(entry.username, (ids = new Set()));
    ids.add(entry.id);
  }

  async list(username: string): Promise<IndexedSession[]> {
    const now = this.clock.now();
    const found: IndexedSession[] = [];
    for (const id of this.byAccount.get(username.toLowerCase()) ?? []) {
      const s = this.byId.get(id);
      if (s !== undefined && s.expiresAt > now) found.push(s);
    }
    return found.sort((a, b) => b.startedAt - a.startedAt);
  }

  async accounts(): Promise<string[]> {
    const now = this.clock.now();
    const found: string[] = [];
    for (const [username, ids] of this.byAccount) {
      for (const id of ids) {
        if ((this.byId.get(id)?.expiresAt ?? 0) > now) {
          found.push(username);
          break;
        }
      }
    }
    return found;
  }

  async touch(sightings: readonly SessionSighting[]): Promise<void> {
    for (const { id, at } of sightings) {
      const s = this.byId.get(id);
      if (s !== undefined && at > s.lastSeenAt) this.byId.set(id, { ...s, lastSeenAt: at });
    }
  }

  async lastSeen(id: string): Promise<number | null> {
    const s = this.byId.get(id);
    return s === undefined || s.expiresAt <= this.clock.now() ? null : s.lastSeenAt;
  }

  private forget(id: string): void {
    const s = this.byId.get(id);
    if (s === undefined) return;
    this.byId.delete(id);
    const ids = this.byAccount.get(s.username);
    ids?.delete(id);
    if (ids?.size === 0) this.byAccount.delete(s.username);
  }

  private sweep(now: number): void {
    for (const [id, s] of this.byId) if (s.expiresAt <= now) this.forget(id);
  }
}
