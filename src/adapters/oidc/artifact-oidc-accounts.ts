import type { OidcAccountRecord, OidcAccounts } from '../../application/ports/oidc-accounts';
import type { OidcArtifacts } from '../../application/ports/oidc-artifacts';
import type { Identity } from '../../domain/session';

/** The record kind, apart from every model name of oidc-provider. */
const KIND = 'PortcullisAccount';

/**
 * {@link OidcAccounts} kept with the provider's own artifacts, so they share its store (memory,
 * SQLite, PostgreSQL or Redis), its replicas and its restarts.
 */
export class ArtifactOidcAccounts implements OidcAccounts {
  constructor(
    private readonly artifacts: OidcArtifacts,
    /** How long a record is kept when {@link endTokensBefore} saves it again: the longest token life (the refresh token's). */
    private readonly ttlSeconds: number,
  ) {}

  async endTokensBefore(subject: string, atSeconds: number): Promise<void> {
    const record = await this.find(subject);
    if (record === null || record.validAfter >= atSeconds) return;
    await this.remember({ ...record, validAfter: atSeconds }, this.ttlSeconds);
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
        validAfter: record.validAfter,
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
      validAfter: typeof p.validAfter === 'number' && Number.isFinite(p.validAfter) ? p.validAfter : 0,
    };
  }
}
