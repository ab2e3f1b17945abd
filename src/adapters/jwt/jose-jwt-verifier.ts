import type { JwtRefusal, JwtVerification, JwtVerifier } from '../../application/tokens/jwt-verifier';
import type { JwtIssuerConfig } from '../../config/jwt-issuers';

/** One configured issuer of workload JWTs (`JWT_ISSUERS_<ID>_…`): the algorithms are asymmetric ones only (config refuses `none` and HMAC). */
export type JwtIssuer = JwtIssuerConfig;

export interface JoseJwtVerifierOptions {
  /** The time, for lifetimes and for how often keys are fetched (milliseconds since the epoch). */
  readonly now?: () => number;
  /** An unknown key id (or a failed fetch) fetches the key set again at most once per this long. */
  readonly cooldownMs?: number;
  /** A key set older than this is fetched again in the background; the old one keeps working meanwhile, and if the fetch fails. */
  readonly maxAgeMs?: number;
  /** How long one fetch (discovery document or key set) may take. */
  readonly timeoutMs?: number;
  /** Allowed difference between the issuer's clock and ours for `exp` and `nbf`, in seconds. */
  readonly leewaySeconds?: number;
  readonly fetch?: typeof fetch;
}

type Jose = typeof import('jose');
type LocalKeys = ReturnType<Jose['createLocalJWKSet']>;

/** What is known of one issuer's keys. */
interface KeySet {
  readonly issuer: JwtIssuer;
  /** The key set's URL, once known (configured, or read from the discovery document). */
  url: string | null;
  keys: LocalKeys | null;
  /** When the keys were last fetched, and when a fetch was last tried (failed or not). */
  fetchedAt: number;
  triedAt: number;
  lastFailed: boolean;
  pending: Promise<void> | null;
}

/** The key set cannot be read and the keys held (if any) do not check the token. */
class KeysUnavailable extends Error {}

const DEFAULTS = { cooldownMs: 30_000, maxAgeMs: 10 * 60_000, timeoutMs: 5_000, leewaySeconds: 30 };
/** The longest discovery document or key set read. */
const MAX_DOCUMENT_BYTES = 512 * 1024;
/** The longest username claim, and group, taken; and the most groups. */
const MAX_CLAIM_LENGTH = 256;
const MAX_GROUPS = 256;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;
/** Printable, no control characters: it becomes a header value for the upstream. */
const PRINTABLE = /^[^\p{Cc}]+$/u;

/** Why jose refused, by its error code (never its message, which may quote the token's claims). */
function refusalOf(e: unknown): JwtRefusal {
  const { code, claim } = (e ?? {}) as { code?: string; claim?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return 'expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return 'not_yet_valid';
      if (claim === 'aud') return 'audience';
      if (claim === 'iss') return 'issuer';
      return 'malformed';
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return 'signature';
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return 'algorithm';
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return 'unknown_key';
    default:
      return 'malformed';
  }
}

/** Whether a URL may serve keys: https, or http on this machine only (tests, a local issuer). */
function isKeyUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname));
  } catch {
    return false;
  }
}

/**
 * Checks workload JWTs with jose (issue 32), keeping each issuer's keys in memory. The key set is
 * fetched when first needed, again in the background once it is older than `maxAgeMs`, and again
 * when a token names a key id it does not hold, at most once per `cooldownMs` (a flood of made-up
 * key ids costs the issuer one request per interval). A fetch that fails keeps the keys held:
 * tokens they check keep passing while the issuer is down; a token they cannot check is
 * answered `unavailable`, never passed. jose's own remote key set is not used: it stops using its
 * keys when a refresh fails and retries a failed fetch on every request.
 */
export class JoseJwtVerifier implements JwtVerifier {
  private readonly byIssuer = new Map<string, KeySet>();
  private readonly now: () => number;
  private readonly cooldownMs: number;
  private readonly maxAgeMs: number;
  private readonly timeoutMs: number;
  private readonly leewaySeconds: number;
  private readonly fetch: typeof fetch;

  constructor(
    private readonly jose: Jose,
    issuers: readonly JwtIssuer[],
    options: JoseJwtVerifierOptions = {},
  ) {
    for (const issuer of issuers) {
      this.byIssuer.set(issuer.issuer, { issuer, url: issuer.jwksUrl ?? null, keys: null, fetchedAt: 0, triedAt: -Infinity, lastFailed: false, pending: null });
    }
    this.now = options.now ?? Date.now;
    this.cooldownMs = options.cooldownMs ?? DEFAULTS.cooldownMs;
    this.maxAgeMs = options.maxAgeMs ?? DEFAULTS.maxAgeMs;
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.leewaySeconds = options.leewaySeconds ?? DEFAULTS.leewaySeconds;
    this.fetch = options.fetch ?? fetch;
  }

  /** Fetches every issuer's keys in the background (at start), so the first token does not wait. */
  warm(): void {
    for (const set of this.byIssuer.values()) void this.refresh(set).catch(() => undefined);
  }

  async verify(jwt: string): Promise<JwtVerification> {
    let iss: unknown;
    try {
      iss = this.jose.decodeJwt(jwt).iss;
    } catch {
      return { ok: false, reason: 'malformed' };
    }
    const set = typeof iss === 'string' ? this.byIssuer.get(iss) : undefined;
    if (set === undefined) return { ok: false, reason: 'unknown_issuer' };
    const { issuer } = set;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await this.jose.jwtVerify(jwt, (header, token) => this.keyFor(set, header, token), {
        issuer: issuer.issuer,
        audience: [...issuer.audiences],
        algorithms: [...issuer.algorithms],
        clockTolerance: this.leewaySeconds,
        requiredClaims: ['exp'],
        currentDate: new Date(this.now()),
      }));
    } catch (e) {
      if (e instanceof KeysUnavailable) return { ok: false, reason: 'unavailable', issuerId: issuer.id };
      return { ok: false, reason: refusalOf(e), issuerId: issuer.id };
    }
    const subject = claimText(payload[issuer.usernameClaim]);
    if (subject === null) return { ok: false, reason: 'subject', issuerId: issuer.id };
    const groups = issuer.groupsClaim === undefined ? [] : groupsOf(payload[issuer.groupsClaim]);
    return { ok: true, issuerId: issuer.id, subject, groups, expiresAt: (payload.exp as number) * 1000 };
  }

  /** The key for a token's header: from the keys held, fetching the set when none is held or the key id is new (see the class). */
  private async keyFor(set: KeySet, header: Parameters<LocalKeys>[0], token: Parameters<LocalKeys>[1]): ReturnType<LocalKeys> {
    const now = this.now();
    const coolingDown = now - set.triedAt < this.cooldownMs;
    if (set.keys === null) {
      if (coolingDown && set.pending === null) throw new KeysUnavailable();
      await this.refreshOrUnavailable(set);
    } else if (now - set.fetchedAt >= this.maxAgeMs && !coolingDown) {
      void this.refresh(set).catch(() => undefined);
    }
    const keys = set.keys as unknown as LocalKeys;
    try {
      return await keys(header, token);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code !== 'ERR_JWKS_NO_MATCHING_KEY') throw e;
      if (set.pending !== null) await set.pending.catch(() => undefined);
      else if (this.now() - set.triedAt >= this.cooldownMs) await this.refresh(set).catch(() => undefined);
      else if (!set.lastFailed) throw e; // fetched recently, and the key is not in it
      // A failed fetch cannot tell a new key from a made-up one: the token cannot be checked now.
      if (set.lastFailed) throw new KeysUnavailable();
      return (set.keys as unknown as LocalKeys)(header, token);
    }
  }

  private async refreshOrUnavailable(set: KeySet): Promise<void> {
    try {
      await this.refresh(set);
    } catch {
      throw new KeysUnavailable();
    }
  }

  /** Fetches the key set (its URL from discovery first, when not known); one fetch at a time per issuer. */
  private refresh(set: KeySet): Promise<void> {
    set.pending ??= (async () => {
      set.triedAt = this.now();
      try {
        set.url ??= await this.discoverKeysUrl(set.issuer);
        const keys = this.jose.createLocalJWKSet((await this.readJson(set.url)) as Parameters<Jose['createLocalJWKSet']>[0]);
        set.keys = keys;
        set.fetchedAt = this.now();
        set.lastFailed = false;
      } catch (e) {
        set.lastFailed = true;
        throw e;
      }
    })().finally(() => {
      set.pending = null;
    });
    return set.pending;
  }

  /** `jwks_uri` of the issuer's OpenID Connect discovery document, which must name the same issuer. */
  private async discoverKeysUrl(issuer: JwtIssuer): Promise<string> {
    const doc = (await this.readJson(`${issuer.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`)) as { issuer?: unknown; jwks_uri?: unknown };
    if (doc.issuer !== issuer.issuer || !isKeyUrl(doc.jwks_uri)) throw new Error('unusable discovery document');
    return doc.jwks_uri;
  }

  /** A JSON document of at most MAX_DOCUMENT_BYTES, within the timeout, no redirects. */
  private async readJson(url: string): Promise<unknown> {
    const response = await this.fetch(url, { signal: AbortSignal.timeout(this.timeoutMs), redirect: 'error', headers: { accept: 'application/json' } });
    if (response.status !== 200 || response.body === null) throw new Error(`status ${response.status}`);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > MAX_DOCUMENT_BYTES) throw new Error('document too large');
      chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  }
}

/** The username claim as text: a non-empty printable string (or an integer, as some issuers write ids), else null. */
function claimText(value: unknown): string | null {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_CLAIM_LENGTH || !PRINTABLE.test(text)) return null;
  return text;
}

/** The groups claim: a list of names (or one name); anything not a usable name is left out. */
function groupsOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value.slice(0, MAX_GROUPS) : [value];
  return values.flatMap((v) => {
    const text = claimText(v);
    return text === null || text.includes(',') ? [] : [text];
  });
}
