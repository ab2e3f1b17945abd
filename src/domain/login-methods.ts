/**
 * How and when a person proved who they are (issue 33): the methods a session proved and when,
 * what a per-path requirement asks of them, and how they are told to applications (`amr`,
 * `auth_time`, `acr`). Pure rules: times are parameters, milliseconds since the epoch.
 */

/** The login methods a rule may name. `token` and `jwt` are machines' credentials, never a session's. */
export type LoginMethod = 'password' | 'totp' | 'passkey' | 'oauth' | 'token' | 'jwt';

export const LOGIN_METHODS: readonly LoginMethod[] = Object.freeze(['password', 'totp', 'passkey', 'oauth', 'token', 'jwt']);

/** The methods a browser session can prove. */
export type SessionMethod = 'password' | 'totp' | 'passkey' | 'oauth';

export const SESSION_METHODS: readonly SessionMethod[] = Object.freeze(['password', 'totp', 'passkey', 'oauth']);

/** The methods a login page can ask for again (an OAuth provider's session is not ours to renew). */
export const STEP_UP_METHODS: readonly SessionMethod[] = Object.freeze(['password', 'totp', 'passkey']);

/** The methods that count as a second factor. */
const SECOND_FACTORS: readonly SessionMethod[] = ['totp', 'passkey'];

/** When each method was last proven in a session. A method absent was never proven in it. */
export type ProvenMethods = Readonly<Partial<Record<SessionMethod, number>>>;

/** `proven` with `methods` proven at `at`; a time never moves backwards and a method is never dropped. */
export function withProven(proven: ProvenMethods, methods: readonly SessionMethod[], at: number): ProvenMethods {
  const out: Partial<Record<SessionMethod, number>> = { ...proven };
  for (const m of methods) out[m] = Math.max(out[m] ?? 0, at);
  return Object.freeze(out);
}

/** The time of the latest proof (OpenID Connect's `auth_time`, in ms), or null when nothing was proven. */
export function lastProven(proven: ProvenMethods): number | null {
  let latest: number | null = null;
  for (const m of SESSION_METHODS) {
    const at = proven[m];
    if (at !== undefined && (latest === null || at > latest)) latest = at;
  }
  return latest;
}

/**
 * The RFC 8176 `amr` values of what was proven: `pwd` for a password, `otp` for a TOTP code,
 * `hwk` and `user` for a passkey (a key held in hardware, the person verified on the device),
 * `fed` for a login through an OAuth provider, and `mfa` once two kinds of factor were proven.
 */
export function amrOf(proven: ProvenMethods): string[] {
  const amr: string[] = [];
  if (proven.password !== undefined) amr.push('pwd');
  if (proven.totp !== undefined) amr.push('otp');
  if (proven.passkey !== undefined) amr.push('hwk', 'user');
  if (proven.oauth !== undefined) amr.push('fed');
  const kinds = Number(proven.password !== undefined) + Number(proven.totp !== undefined) + Number(proven.passkey !== undefined);
  // A passkey alone proves possession and the person (its user verification): two factors.
  if (kinds >= 2 || proven.passkey !== undefined) amr.push('mfa');
  return amr;
}

/** The authentication context classes, weakest first: one factor, two factors, phishing-resistant (a passkey). */
export type AuthenticationContext = 'sfa' | 'mfa' | 'phr';

export const AUTHENTICATION_CONTEXTS: readonly AuthenticationContext[] = Object.freeze(['sfa', 'mfa', 'phr']);

/** The `acr` of what was proven: `phr` with a passkey, `mfa` with a password and a TOTP code, else `sfa`. */
export function acrOf(proven: ProvenMethods): AuthenticationContext {
  if (proven.passkey !== undefined) return 'phr';
  if (proven.totp !== undefined && proven.password !== undefined) return 'mfa';
  return 'sfa';
}

/** What a `paths` entry's `require` asks of the request (issue 33). */
export interface Requirement {
  /** A second factor (TOTP or a passkey) must have been proven. */
  readonly secondFactor: boolean;
  /** Only these methods count; null: any. */
  readonly methods: readonly LoginMethod[] | null;
  /** The counting method must have been proven at most this long ago (ms); null: whenever. */
  readonly maxAgeMs: number | null;
}

/** The credential a request came with, as far as a requirement cares. */
export type PresentedCredential =
  { readonly kind: 'session'; readonly proven: ProvenMethods } | { readonly kind: 'token' } | { readonly kind: 'jwt' } | { readonly kind: 'basic' };

/** The outcome of a requirement: met, a step-up that can meet it (the methods to ask for), or never. */
export type RequirementOutcome =
  { readonly kind: 'met' } | { readonly kind: 'step_up'; readonly methods: readonly SessionMethod[] } | { readonly kind: 'impossible' };

const MET: RequirementOutcome = Object.freeze({ kind: 'met' });
const IMPOSSIBLE: RequirementOutcome = Object.freeze({ kind: 'impossible' });

/** Whether proving `m` counts for `req`. */
function counts(req: Requirement, m: LoginMethod): boolean {
  return (req.methods === null || req.methods.includes(m)) && (!req.secondFactor || (SECOND_FACTORS as readonly string[]).includes(m));
}

/** The methods that count for `req`, among `among`. */
function counting<M extends LoginMethod>(req: Requirement, among: readonly M[]): M[] {
  return among.filter((m) => counts(req, m));
}

/**
 * Whether `credential` meets `req` at `now`. The method is checked, not only the time: a
 * requirement naming `passkey` is never met by a TOTP code or a password, however fresh. An
 * access token or a JWT meets a requirement only where it names `token` / `jwt` and asks for no
 * second factor; HTTP Basic never meets one (it cannot be stepped up). A session that does not
 * meet it is told which methods could, of those a login page can ask for again.
 */
export function checkRequirement(req: Requirement, credential: PresentedCredential, now: number): RequirementOutcome {
  if (credential.kind === 'basic') return IMPOSSIBLE;
  if (credential.kind === 'token' || credential.kind === 'jwt') {
    return !req.secondFactor && req.methods !== null && req.methods.includes(credential.kind) ? MET : IMPOSSIBLE;
  }
  const proven = credential.proven;
  // Every forward-auth request on a matching path asks this: no allocation until it is not met.
  for (let i = 0; i < SESSION_METHODS.length; i += 1) {
    const m = SESSION_METHODS[i];
    if (!counts(req, m)) continue;
    const at = proven[m];
    // A proof from the future (a clock step back) counts as now, never as older than it is.
    if (at !== undefined && (req.maxAgeMs === null || now - at <= req.maxAgeMs)) return MET;
  }
  const ask = counting(req, STEP_UP_METHODS);
  return ask.length === 0 ? IMPOSSIBLE : Object.freeze({ kind: 'step_up', methods: Object.freeze(ask) });
}
