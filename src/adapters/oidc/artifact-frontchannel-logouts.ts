import type { FrontchannelLogouts } from '../../application/oidc/frontchannel-logouts';
import type { OidcArtifacts } from '../../application/oidc/oidc-artifacts';
import type { Clock } from '../../application/ports/clock';

const KIND = 'PortcullisFrontchannelLogouts';
/** Long enough for the answer that ended the session to read them, on any replica. */
const KEPT_SECONDS = 300;

/** {@link FrontchannelLogouts} kept with the provider's artifacts; taken once (consumed atomically, then removed). */
export class ArtifactFrontchannelLogouts implements FrontchannelLogouts {
  constructor(
    private readonly artifacts: OidcArtifacts,
    private readonly clock: Clock,
  ) {}

  async put(sessionId: string, urls: readonly string[]): Promise<void> {
    if (urls.length > 0) await this.artifacts.save(KIND, sessionId, { urls: [...urls] }, KEPT_SECONDS);
  }

  async take(sessionId: string): Promise<string[]> {
    const found = await this.artifacts.find(KIND, sessionId);
    if (found === undefined || !(await this.artifacts.consume(KIND, sessionId, Math.floor(this.clock.now() / 1000)))) return [];
    await this.artifacts.destroy(KIND, sessionId);
    return Array.isArray(found.urls) ? found.urls.filter((u): u is string => typeof u === 'string') : [];
  }
}
