import { sign } from 'node:crypto';
import type { Awaitable } from '../../application/ports/awaitable';
import type { Clock } from '../../application/ports/clock';
import type { IdentityAssertions } from '../../application/forward-auth/identity-assertions';
import type { SubjectIdentifiers } from '../../application/oidc/subject-identifiers';
import { ASSERTION_LIFETIME_SECONDS, ASSERTION_RENEW_BEFORE_SECONDS, assertionClaims, provenMask, subjectSourceOf } from '../../domain/identity-assertion';
import { lastProven, type ProvenMethods } from '../../domain/login-methods';
import type { Identity } from '../../domain/session';
import { BoundedExpiringMap } from '../state/bounded-map';
import type { SigningKey } from './signing-key-set';

/** Distinct identity × application pairs kept signed; past it the oldest is signed anew when next seen. */
export const DEFAULT_ASSERTION_CACHE_ENTRIES = 10_000;
/** Least time between two attempts to load the key after one failed, when requests ask for it. */
const LOAD_RETRY_MS = 5_000;

/**
 * Identity assertions as RS256 JWTs made with node:crypto (no JOSE library on the hot path),
 * cached by value: the key is everything the token says (audience, subject, e-mail, name,
 * username, groups), never an object's identity, so a changed group or e-mail gets a new token at
 * once while the same person on the same application reuses one until a minute before it expires.
 */
export class NodeCryptoIdentityAssertions implements IdentityAssertions {
  private cache: BoundedExpiringMap<string>;
  private key: SigningKey | null = null;
  private loading: Promise<void> | null = null;
  /** After a failed load, requests do not start another one before this time (a store that is down is not asked per request). */
  private retryAt = 0;
  /** Subjects by source and username (they never change for an account). */
  private readonly knownSubjects = new Map<string, string>();
  private header = '';

  /**
   * `loadKey` reads the provider's current signing key (the durable store's key set, or
   * OIDC_SIGNING_KEY_FILE); it runs once, when the first assertion is asked for or `load()` is
   * called, and again after a failure. `onLoadError` hears why it failed (never key material).
   */
  constructor(
    private readonly issuer: string,
    private readonly subjects: SubjectIdentifiers,
    private readonly clock: Clock,
    private readonly loadKey: () => Promise<SigningKey>,
    private readonly onLoadError: (error: unknown) => void = () => undefined,
    private readonly capacity = DEFAULT_ASSERTION_CACHE_ENTRIES,
  ) {
    this.cache = new BoundedExpiringMap(capacity);
  }

  /** The account's subject, remembered: an HMAC per request would cost more than the rest of the lookup. */
  private subjectOf(identity: Identity): string {
    const source = subjectSourceOf(identity.provider);
    const key = `${source}\u0000${identity.username}`;
    let subject = this.knownSubjects.get(key);
    if (subject === undefined) {
      if (this.knownSubjects.size >= this.capacity) this.knownSubjects.clear();
      subject = this.subjects.subjectOf(source, identity.username);
      this.knownSubjects.set(key, subject);
    }
    return subject;
  }

  /** Loads the signing key unless it is loaded or loading; resolves once it can sign (or the load failed). */
  load(): Promise<void> {
    if (this.key !== null) return Promise.resolve();
    this.loading ??= this.loadKey().then(
      (key) => this.useKey(key),
      (error: unknown) => {
        this.loading = null;
        this.retryAt = this.clock.now() + LOAD_RETRY_MS;
        this.onLoadError(error);
      },
    );
    return this.loading;
  }

  /** Signs with `key` from now on (start, rotation); tokens signed with the previous key are dropped. */
  useKey(key: SigningKey): void {
    this.key = key;
    this.header = Buffer.from(JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: key.kid })).toString('base64url');
    this.cache = new BoundedExpiringMap(this.capacity);
  }

  assertionFor(identity: Identity, audience: string, proven?: ProvenMethods): Awaitable<string | null> {
    if (this.key === null) {
      // The first requests wait for the key; after a failed load they are refused (503) until the
      // next attempt, never passed without an assertion.
      if (this.loading === null && this.clock.now() < this.retryAt) return null;
      return this.load().then(() => (this.key === null ? null : this.signed(identity, audience, proven)));
    }
    return this.signed(identity, audience, proven);
  }

  private signed(identity: Identity, audience: string, proven: ProvenMethods | undefined): string {
    const key = this.key as SigningKey;
    const now = this.clock.now();
    const subject = this.subjectOf(identity);
    // \u0000 cannot occur in a host, an e-mail or a group read from a store, so fields cannot run into each other.
    // What the session proved and when lead (numbers, no string of their own): a step-up changes the key, so
    // its next request gets the new amr / auth_time / acr, never the token signed before it.
    const cacheKey = `${provenMask(proven)}\u0000${proven === undefined ? '' : lastProven(proven)}\u0000${audience}\u0000${subject}\u0000${identity.username}\u0000${identity.email}\u0000${identity.name}\u0000${identity.groups.join('\u0000')}`;
    const cached = this.cache.get(cacheKey, now);
    if (cached !== undefined) return cached;

    const iat = Math.floor(now / 1000);
    const payload = Buffer.from(JSON.stringify(assertionClaims(this.issuer, audience, subject, identity, iat, proven))).toString('base64url');
    const input = `${this.header}.${payload}`;
    const token = `${input}.${sign('sha256', Buffer.from(input), key.privateKey).toString('base64url')}`;
    // Kept until a minute before `exp`: then the next request signs a fresh one.
    this.cache.set(cacheKey, token, (iat + ASSERTION_LIFETIME_SECONDS - ASSERTION_RENEW_BEFORE_SECONDS) * 1000);
    return token;
  }
}
