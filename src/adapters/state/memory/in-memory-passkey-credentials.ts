import type { PasskeyCredentials, PasskeyRemoval } from '../../../application/passkeys/passkey-credentials';
import type { Passkey } from '../../../domain/passkey';

/**
 * Passkeys in this process (no durable store configured): gone at a restart, like everything else
 * the gateway keeps in memory then. Bounded: past `capacity` passkeys in all, a new one is refused
 * rather than an old one forgotten (forgetting a passkey would lock its owner out silently).
 */
export class InMemoryPasskeyCredentials implements PasskeyCredentials {
  private readonly byId = new Map<string, Passkey>();

  constructor(private readonly capacity = 100_000) {}

  async add(passkey: Passkey, max: number): Promise<boolean> {
    if (this.byId.has(passkey.id) || this.byId.size >= this.capacity) return false;
    if (this.owned(passkey.username).length >= max) return false;
    this.byId.set(passkey.id, Object.freeze({ ...passkey, transports: [...passkey.transports] }));
    return true;
  }

  async find(id: string): Promise<Passkey | null> {
    return this.byId.get(id) ?? null;
  }

  async list(username: string): Promise<Passkey[]> {
    return this.owned(username).sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  async rename(username: string, id: string, name: string): Promise<boolean> {
    const passkey = this.byId.get(id);
    if (passkey === undefined || passkey.username !== username) return false;
    this.byId.set(id, Object.freeze({ ...passkey, name }));
    return true;
  }

  async remove(username: string, id: string, keep = 0): Promise<PasskeyRemoval> {
    // Synchronous from check to delete: nothing runs in between.
    const passkey = this.byId.get(id);
    if (passkey === undefined || passkey.username !== username) return 'not_found';
    if (this.owned(username).length - 1 < keep) return 'kept';
    this.byId.delete(id);
    return 'removed';
  }

  async recordUse(id: string, expected: number, counter: number, at: number): Promise<boolean> {
    // Synchronous check-and-set: of two concurrent logins with one counter value, one wins.
    const passkey = this.byId.get(id);
    if (passkey === undefined || passkey.counter !== expected) return false;
    this.byId.set(id, Object.freeze({ ...passkey, counter, lastUsedAt: at }));
    return true;
  }

  private owned(username: string): Passkey[] {
    return [...this.byId.values()].filter((p) => p.username === username);
  }
}
