import { isLiveToken, type AccessTokenRecord } from '../../../domain/access-token';
import type { AccessTokens } from '../../../application/tokens/access-tokens';

/** Access tokens in this process's memory: lost at restart (the gateway without DATA_DIR, Redis or PostgreSQL; tests). */
export class InMemoryAccessTokens implements AccessTokens {
  private readonly byHash = new Map<string, AccessTokenRecord>();

  async add(record: AccessTokenRecord): Promise<void> {
    this.byHash.set(record.hash, record);
  }

  findByHash(hash: string): AccessTokenRecord | null {
    return this.byHash.get(hash) ?? null;
  }

  async list(username: string): Promise<AccessTokenRecord[]> {
    return [...this.byHash.values()].filter((r) => r.username === username).sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  }

  async accounts(now: number): Promise<string[]> {
    return [...new Set([...this.byHash.values()].filter((r) => isLiveToken(r, now)).map((r) => r.username))];
  }

  async revoke(username: string, id: string, at: number): Promise<boolean> {
    for (const [hash, r] of this.byHash) {
      if (r.username === username && r.id === id) {
        if (r.revokedAt !== null) return false;
        this.byHash.set(hash, { ...r, revokedAt: at });
        return true;
      }
    }
    return false;
  }

  async touch(used: ReadonlyMap<string, number>): Promise<void> {
    for (const [hash, at] of used) {
      const r = this.byHash.get(hash);
      if (r !== undefined && (r.lastUsedAt === null || r.lastUsedAt < at)) this.byHash.set(hash, { ...r, lastUsedAt: at });
    }
  }

  async prune(before: number): Promise<void> {
    for (const [hash, r] of this.byHash) if (r.expiresAt < before || (r.revokedAt !== null && r.revokedAt < before)) this.byHash.delete(hash);
  }
}
