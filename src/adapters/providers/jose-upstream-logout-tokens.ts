import type { UpstreamLogout, UpstreamLogoutRefusal, UpstreamLogoutTokens } from '../../application/oauth/upstream-logout-tokens';
import type { Clock } from '../../application/ports/clock';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../domain/backchannel-logout';
import { err, ok, type Result } from '../../domain/result';
import { fetchJson } from './simple-oauth2-client';

/** An upstream provider that can log people out over the back channel: a generic one with an issuer. */
export interface UpstreamLogoutProvider {
  readonly id: string;
  readonly issuer: string;
  readonly clientId: string;
}

/** The longest logout token read (a JWT of a few claims is well under 2 KB). */
export const MAX_LOGOUT_TOKEN_LENGTH = 8192;
/** How old a logout token may be (its `iat`), and the clock skew allowed either way, in seconds. */
const MAX_AGE_SECONDS = 600;
const SKEW_SECONDS = 60;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

type KeySet = ReturnType<(typeof import('jose'))['createRemoteJWKSet']>;

/**
 * Logout tokens verified with jose against each provider's JWKS (its `jwks_uri`, read once from
 * its discovery document; jose refetches the keys when a token names an unknown `kid`, at most
 * every 30 s). Everything OpenID Connect Back-Channel Logout 1.0 section 2.6 asks is checked.
 */
export class JoseUpstreamLogoutTokens implements UpstreamLogoutTokens {
  private readonly keySets = new Map<string, Promise<KeySet>>();

  constructor(
    private readonly providers: readonly UpstreamLogoutProvider[],
    /** jose, loaded at the first logout token (composition's optional module). */
    private readonly jose: () => typeof import('jose'),
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  async verify(providerId: string, token: string): Promise<Result<UpstreamLogout, UpstreamLogoutRefusal>> {
    const provider = this.providers.find((p) => p.id === providerId);
    if (provider === undefined) return err('unknown_provider');
    if (token.length > MAX_LOGOUT_TOKEN_LENGTH || !JWT.test(token)) return err('malformed');
    let keys: KeySet;
    try {
      keys = await this.keySetOf(provider);
    } catch {
      return err('provider_unavailable');
    }
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await this.jose().jwtVerify(token, keys, {
        issuer: provider.issuer,
        audience: provider.clientId,
        algorithms: ALGORITHMS,
        currentDate: new Date(this.clock.now()),
        maxTokenAge: MAX_AGE_SECONDS,
        clockTolerance: SKEW_SECONDS,
        requiredClaims: ['iat', 'jti'],
      }));
    } catch (e) {
      return err(refusalOf(e));
    }
    return claimsOf(payload, this.clock.now());
  }

  private keySetOf(provider: UpstreamLogoutProvider): Promise<KeySet> {
    let found = this.keySets.get(provider.id);
    if (found === undefined) {
      found = this.discover(provider);
      this.keySets.set(provider.id, found);
      // A provider that is down now is asked again at the next token.
      found.catch(() => this.keySets.delete(provider.id));
    }
    return found;
  }

  private async discover(provider: UpstreamLogoutProvider): Promise<KeySet> {
    const doc = await fetchJson(provider.id, `${provider.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, this.timeoutMs);
    const jwksUri = (doc as { jwks_uri?: unknown } | null)?.jwks_uri;
    if (typeof jwksUri !== 'string' || !/^https?:\/\//.test(jwksUri)) throw new Error('no jwks_uri');
    return this.jose().createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: this.timeoutMs });
  }
}

/** Which check a jose error failed. */
function refusalOf(e: unknown): UpstreamLogoutRefusal {
  const { code, claim } = (e ?? {}) as { code?: string; claim?: string };
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    if (claim === 'iss') return 'wrong_issuer';
    if (claim === 'aud') return 'wrong_audience';
    if (claim === 'iat' || claim === 'nbf') return 'stale';
    return 'malformed';
  }
  if (code === 'ERR_JWT_EXPIRED') return 'stale';
  if (code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' || code === 'ERR_JWKS_NO_MATCHING_KEY' || code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS')
    return 'bad_signature';
  if (code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JOSE_GENERIC') return 'provider_unavailable';
  return 'malformed';
}

/** The checks jose does not do: the event, no nonce, a subject or session, a jti. */
function claimsOf(payload: Record<string, unknown>, now: number): Result<UpstreamLogout, UpstreamLogoutRefusal> {
  const events = payload.events;
  const event =
    events !== null && typeof events === 'object' && !Array.isArray(events) ? (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT] : undefined;
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return err('no_event');
  if ('nonce' in payload) return err('has_nonce');
  const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' && v.length <= 1024 ? v : null);
  const sub = text(payload.sub);
  const sid = text(payload.sid);
  const jti = text(payload.jti);
  if (sub === null && sid === null) return err('no_subject');
  if (jti === null) return err('malformed');
  const iat = payload.iat as number;
  const exp = typeof payload.exp === 'number' ? payload.exp : iat + MAX_AGE_SECONDS;
  // Remembered as long as the token could be accepted: past its expiry and its age limit.
  const usedUntil = Math.max(exp, iat + MAX_AGE_SECONDS, Math.floor(now / 1000)) * 1000 + SKEW_SECONDS * 1000;
  return ok({ jti, sub, sid, usedUntil });
}
