import type { OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { OidcClients } from '../../application/oidc/oidc-clients';
import type { OidcSessionLogin, OidcSessionLogins } from '../../application/oidc/oidc-session-logins';
import type { Clock } from '../../application/ports/clock';

/** One record per (gateway session, app), apart from every model name of oidc-provider. */
const KIND = 'PortcullisSessionLogin';
/** What releases before this one wrote: one record per session with all its apps (still taken, for sessions from before an upgrade). */
const LEGACY_KIND = 'PortcullisSessionLogins';

/**
 * {@link OidcSessionLogins} kept with the provider's own artifacts, so they share its store, its
 * replicas and its restarts. Each app of a session is its own record (`<session> <client>`):
 * two replicas noting two apps of one session at the same instant write two records and never
 * overwrite each other's. Taking them walks the configured clients (a fixed, short list) and
 * consumes each record first (one atomic step on every backend): of two replicas ending the same
 * session at once, only one gets each app, so each app is told once.
 */
export class ArtifactOidcSessionLogins implements OidcSessionLogins {
  constructor(
    private readonly artifacts: OidcArtifacts,
    private readonly clock: Clock,
    private readonly clients: OidcClients,
  ) {}

  async add(sessionId: string, login: OidcSessionLogin, untilMs: number): Promise<void> {
    const ttl = Math.ceil((untilMs - this.clock.now()) / 1000);
    if (ttl <= 0) return;
    // Nested, not at the top: a top-level `grantId` would let the provider's own grant revocation
    // (RP-initiated logout revokes the grant first) remove the record before the logout is sent.
    await this.artifacts.save(KIND, recordId(sessionId, login.clientId), { app: { ...login } }, ttl);
  }

  async take(sessionId: string): Promise<OidcSessionLogin[]> {
    const [legacy, ...apps] = await Promise.all([
      this.takeRecord(LEGACY_KIND, sessionId),
      ...this.clients.all().map((client) => this.takeRecord(KIND, recordId(sessionId, client.clientId))),
    ]);
    const taken = new Map<string, OidcSessionLogin>();
    for (const login of legacyAppsOf(legacy)) taken.set(login.clientId, login);
    for (const record of apps) {
      const login = loginOf(record?.app);
      if (login !== null) taken.set(login.clientId, login);
    }
    return [...taken.values()];
  }

  /** The record, once: read, consumed atomically (only one taker wins), then removed. */
  private async takeRecord(kind: string, id: string): Promise<Readonly<Record<string, unknown>> | undefined> {
    const found = await this.artifacts.find(kind, id);
    if (found === undefined) return undefined;
    if (!(await this.artifacts.consume(kind, id, Math.floor(this.clock.now() / 1000)))) return undefined;
    await this.artifacts.destroy(kind, id);
    return found;
  }
}

/** Session ids are URL-safe tokens and client ids are refused with a space (config/oidc.ts), so a space joins them unambiguously. */
const recordId = (sessionId: string, clientId: string): string => `${sessionId} ${clientId}`;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** One stored app, checked field by field (a record is JSON from the store); null when it is not one. */
function loginOf(value: unknown): OidcSessionLogin | null {
  const v = value as Record<string, unknown> | null | undefined;
  const clientId = str(v?.clientId);
  const subject = str(v?.subject);
  if (clientId === null || subject === null) return null;
  return { clientId, subject, sid: str(v?.sid), grantId: str(v?.grantId) };
}

/** The apps of a record in the earlier one-record-per-session form. */
function legacyAppsOf(record: Readonly<Record<string, unknown>> | undefined): OidcSessionLogin[] {
  const apps = record?.apps;
  if (apps === null || typeof apps !== 'object' || Array.isArray(apps)) return [];
  return Object.values(apps as Record<string, unknown>)
    .map(loginOf)
    .filter((login): login is OidcSessionLogin => login !== null);
}
