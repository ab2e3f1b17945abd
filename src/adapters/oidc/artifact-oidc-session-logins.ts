import type { OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { OidcSessionLogin, OidcSessionLogins } from '../../application/oidc/oidc-session-logins';
import type { Clock } from '../../application/ports/clock';

/** The record kind, apart from every model name of oidc-provider. */
const KIND = 'PortcullisSessionLogins';

/**
 * {@link OidcSessionLogins} kept with the provider's own artifacts (one record per gateway session,
 * its apps by client id), so they share its store, its replicas and its restarts. Taking them
 * consumes the record first (one atomic step on every backend): of two replicas ending the same
 * session at once, only one gets its apps, so each is told once.
 */
export class ArtifactOidcSessionLogins implements OidcSessionLogins {
  constructor(
    private readonly artifacts: OidcArtifacts,
    private readonly clock: Clock,
  ) {}

  async add(sessionId: string, login: OidcSessionLogin, untilMs: number): Promise<void> {
    const ttl = Math.ceil((untilMs - this.clock.now()) / 1000);
    if (ttl <= 0) return;
    const existing = await this.artifacts.find(KIND, sessionId);
    const apps = { ...appsOf(existing), [login.clientId]: { ...login } };
    await this.artifacts.save(KIND, sessionId, { apps }, ttl);
  }

  async take(sessionId: string): Promise<OidcSessionLogin[]> {
    const found = await this.artifacts.find(KIND, sessionId);
    if (found === undefined) return [];
    if (!(await this.artifacts.consume(KIND, sessionId, Math.floor(this.clock.now() / 1000)))) return [];
    await this.artifacts.destroy(KIND, sessionId);
    return Object.values(appsOf(found));
  }
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The apps of a stored record, each checked field by field (a record is JSON from the store). */
function appsOf(record: Readonly<Record<string, unknown>> | undefined): Record<string, OidcSessionLogin> {
  const apps = record?.apps;
  if (apps === null || typeof apps !== 'object' || Array.isArray(apps)) return {};
  const out: Record<string, OidcSessionLogin> = {};
  for (const value of Object.values(apps as Record<string, unknown>)) {
    const v = value as Record<string, unknown> | null;
    const clientId = str(v?.clientId);
    const subject = str(v?.subject);
    if (clientId === null || subject === null) continue;
    out[clientId] = { clientId, subject, sid: str(v?.sid), grantId: str(v?.grantId) };
  }
  return out;
}
