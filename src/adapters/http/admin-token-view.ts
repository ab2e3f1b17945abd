import type { AdminTokenView } from '../../application/admin/admin-tokens';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A live access token in the admin API (issue 36): its public id and facts, never the token. */
export function adminTokenView(t: AdminTokenView): Record<string, unknown> {
  return {
    id: t.id,
    username: t.username,
    name: t.name,
    apps: t.apps === null ? null : [...t.apps],
    createdAt: iso(t.createdAt),
    lastUsedAt: t.lastUsedAt === null ? null : iso(t.lastUsedAt),
    expiresAt: iso(t.expiresAt),
  };
}
