import type { OidcAccountRecord, OidcAccounts, OidcTokensEnded } from '../../application/oidc/oidc-accounts';
import type { OidcArtifact, OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { Identity } from '../../domain/session';

/** The record kinds, apart from every model name of oidc-provider. */
const KIND = 'PortcullisAccount';
const ENDED = 'PortcullisTokensEnded';

/**
 * {@link OidcAccounts} kept with the provider's own artifacts, so they share its store (memory,
 * SQLite, PostgreSQL or Redis), its replicas and its restarts. What ended a person's tokens is a
 * record of its own, written only by {@link endTokensBefore}: a login rewriting the account record
 * at the same moment never carries an older copy of it back.
 */
export class ArtifactOidcAccounts implements OidcAccounts {
  constructor(
    private readonly artifacts: OidcArtifacts,
    /** How long the "ended" record is kept: the longest token life (the refresh token's); older tokens are dead anyway. */
    private readonly ttlSeconds: number,
  ) {}

  async endTokensBefore(subject: string, atSeconds: number, clientId?: string): Promise<void> {
    const ended = await this.tokensEnded(subject);
    const next: OidcTokensEnded =
      clientId === undefined
        ? { ...ended, all: Math.max(ended.all, atSeconds) }
        : { ...ended, clients: { ...ended.clients, [clientId]: Math.max(ended.clients[clientId] ?? 0, atSeconds) } };
    await this.artifacts.save(ENDED, subject, { all: next.all, clients: { ...next.clients } }, this.ttlSeconds);
  }

  async tokensEnded(subject: string): Promise<OidcTokensEnded> {
    const p = await this.artifacts.find(ENDED, subject);
    return { all: seconds(p?.all), clients: secondsByKey(p?.clients) };
  }

  remember(record: OidcAccountRecord, ttlSeconds: number): Promise<void> {
    const { identity } = record;
    return this.artifacts.save(
      KIND,
      record.subject,
      {
        username: identity.username,
        name: identity.name,
        email: identity.email,
        groups: [...identity.groups],
        provider: identity.provider,
        oauth: identity.oauth,
        totp: identity.totp,
        ...(record.credential === undefined ? {} : { credential: record.credential }),
        credentialSince: record.credentialSince,
        clients: { ...record.clients },
      },
      ttlSeconds,
    );
  }

  async find(subject: string): Promise<OidcAccountRecord | null> {
    const p = await this.artifacts.find(KIND, subject);
    if (p === undefined) return null;
    const str = (v: unknown): string => (typeof v === 'string' ? v : '');
    const identity: Identity = {
      username: str(p.username),
      name: str(p.name),
      email: str(p.email),
      groups: Array.isArray(p.groups) ? p.groups.filter((g): g is string => typeof g === 'string') : [],
      provider: str(p.provider),
      oauth: p.oauth === true,
      totp: p.totp === true,
    };
    if (identity.username === '' || identity.provider === '') return null;
    return {
      subject,
      identity,
      ...(typeof p.credential === 'string' ? { credential: p.credential } : {}),
      credentialSince: seconds(p.credentialSince),
      clients: secondsByKey(p.clients),
    };
  }
}

const seconds = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function secondsByKey(v: OidcArtifact[string]): Record<string, number> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, at]) => typeof at === 'number' && Number.isFinite(at))) as Record<
    string,
    number
  >;
}
