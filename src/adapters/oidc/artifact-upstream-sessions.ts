import { createHash } from 'node:crypto';
import type { OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { UpstreamLogin, UpstreamSessionRef, UpstreamSessions } from '../../application/oauth/upstream-sessions';
import type { Clock } from '../../application/ports/clock';

/** The record kind, apart from every model name of oidc-provider. */
const KIND = 'PortcullisUpstreamSessions';
/** The most sessions one upstream subject's record lists (the newest kept): a bound on one record's size. */
const MAX_PER_RECORD = 200;

/**
 * {@link UpstreamSessions} kept in the gateway's durable records store (the one OpenID Connect
 * artifacts use: memory, SQLite, PostgreSQL or Redis, shared by the replicas): one record per
 * upstream session (`sid`) and one per subject (`sub`), each listing the gateway sessions made from
 * it with their expiry, kept until the last of them expires. Keys are hashed: a provider's values
 * may be long.
 */
export class ArtifactUpstreamSessions implements UpstreamSessions {
  constructor(
    private readonly artifacts: OidcArtifacts,
    private readonly clock: Clock,
  ) {}

  async remember(provider: string, login: UpstreamLogin, session: UpstreamSessionRef): Promise<void> {
    await this.add(keyOf(provider, 'sub', login.sub), session);
    if (login.sid !== null) await this.add(keyOf(provider, 'sid', login.sid), session);
  }

  async find(provider: string, by: { readonly sid: string } | { readonly sub: string }): Promise<UpstreamSessionRef[]> {
    const key = 'sid' in by ? keyOf(provider, 'sid', by.sid) : keyOf(provider, 'sub', by.sub);
    return this.live(await this.artifacts.find(KIND, key));
  }

  private async add(key: string, session: UpstreamSessionRef): Promise<void> {
    const sessions = [...this.live(await this.artifacts.find(KIND, key)).filter((s) => s.id !== session.id), session].slice(-MAX_PER_RECORD);
    const until = Math.max(...sessions.map((s) => s.expiresAt));
    const ttl = Math.ceil((until - this.clock.now()) / 1000);
    if (ttl <= 0) return;
    await this.artifacts.save(KIND, key, { sessions: sessions.map((s) => ({ id: s.id, expiresAt: s.expiresAt })) }, ttl);
  }

  private live(record: Readonly<Record<string, unknown>> | undefined): UpstreamSessionRef[] {
    const now = this.clock.now();
    const list = Array.isArray(record?.sessions) ? (record.sessions as unknown[]) : [];
    return list.flatMap((s) => {
      const v = s as { id?: unknown; expiresAt?: unknown } | null;
      return typeof v?.id === 'string' && typeof v.expiresAt === 'number' && v.expiresAt > now ? [{ id: v.id, expiresAt: v.expiresAt }] : [];
    });
  }
}

const keyOf = (provider: string, kind: 'sid' | 'sub', value: string): string => `${provider}:${kind}:${createHash('sha256').update(value).digest('base64url')}`;
