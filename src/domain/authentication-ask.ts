import {
  acrOf,
  AUTHENTICATION_CONTEXTS,
  lastProven,
  STEP_UP_METHODS,
  withProven,
  type AuthenticationContext,
  type ProvenMethods,
  type SessionMethod,
} from './login-methods';

/**
 * What an OpenID Connect relying party asks of the login behind the ID token it gets (issue 33):
 * an authentication context (`acr_values`, RFC 9470 style) and a recent proof (`max_age`). Pure
 * rules: times are parameters, milliseconds since the epoch.
 */
export interface AuthenticationAsk {
  /** Any one of these contexts, or a stronger one (`phr` > `mfa` > `sfa`); null: any. */
  readonly acr: readonly AuthenticationContext[] | null;
  /** The latest proof must be at or after this instant; null: whenever. */
  readonly provenSince: number | null;
}

/** What a session meets of an ask: all of it, a step-up that would (any one of `methods`), or nothing a step-up can mend. */
export type AuthenticationAskOutcome =
  { readonly kind: 'met' } | { readonly kind: 'step_up'; readonly methods: readonly SessionMethod[] } | { readonly kind: 'impossible' };

const rank = (acr: AuthenticationContext): number => AUTHENTICATION_CONTEXTS.indexOf(acr);

/**
 * The contexts of an `acr_values` parameter (space-separated, in the relying party's order of
 * preference) that this gateway knows, or null when it names none of them (absent, empty, or
 * only another provider's values): then nothing is asked.
 */
export function acrValuesOf(raw: unknown): AuthenticationContext[] | null {
  if (typeof raw !== 'string') return null;
  const known = raw.split(' ').filter((v): v is AuthenticationContext => (AUTHENTICATION_CONTEXTS as readonly string[]).includes(v));
  return known.length === 0 ? null : known;
}

/** Whether proofs of context `have` meet an ask for `want`: a stronger context meets a weaker ask. */
export function meetsAcr(have: AuthenticationContext, want: readonly AuthenticationContext[] | null): boolean {
  return want === null || want.some((w) => rank(have) >= rank(w));
}

/**
 * The `acr` to tell the relying party: the first value it asked that the proofs meet (a passkey
 * login asked for `mfa` is an `mfa` login, and the relying party gets a value it listed), else
 * what the proofs are.
 */
export function reportedAcr(proven: ProvenMethods, asked: readonly AuthenticationContext[] | null): AuthenticationContext {
  const have = acrOf(proven);
  return asked?.find((w) => rank(have) >= rank(w)) ?? have;
}

/** When a session last proved who it is (`auth_time`, ms): its latest proof, or its start for a cookie that records none. */
export function provenAt(proven: ProvenMethods, issuedAt: number): number {
  return lastProven(proven) ?? issuedAt;
}

/**
 * Whether a session that proved `proven` (and started at `issuedAt`) meets `ask` at `now`; if not,
 * which methods proven now would. Only the methods a login page can ask again count: a session
 * of an OAuth login cannot renew its provider's proof here. An empty list is `impossible`.
 */
export function checkAuthenticationAsk(ask: AuthenticationAsk, proven: ProvenMethods, issuedAt: number, now: number): AuthenticationAskOutcome {
  const fresh = ask.provenSince === null || provenAt(proven, issuedAt) >= ask.provenSince;
  if (fresh && meetsAcr(acrOf(proven), ask.acr)) return { kind: 'met' };
  // A proof made now is always fresh enough; what remains is whether it brings the context asked.
  const methods = STEP_UP_METHODS.filter((m) => meetsAcr(acrOf(withProven(proven, [m], now)), ask.acr));
  return methods.length === 0 ? { kind: 'impossible' } : { kind: 'step_up', methods };
}
