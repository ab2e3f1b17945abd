import type { EnvReader } from './env';
import type { RowDoc } from './option-spec';

/** The jwt section: issuers of workload JWTs (`JWT_ISSUERS_<ID>_…`, issue 32), none by default. */

/** One issuer of workload JWTs: a Bearer JWT it signed passes as `<id>:<username claim>`. */
export interface JwtIssuerConfig {
  /** `<ID>` in lower case, `_` read as `-` (`JWT_ISSUERS_GITHUB_ACTIONS_ISSUER` → `github-actions`). */
  readonly id: string;
  /** The `iss` its tokens carry, exactly as written. */
  readonly issuer: string;
  /** The `aud` values accepted (a token must carry one of them). */
  readonly audiences: readonly string[];
  /** Where its key set is; undefined: `jwks_uri` of its discovery document. */
  readonly jwksUrl?: string;
  readonly usernameClaim: string;
  readonly groupsClaim?: string;
  readonly algorithms: readonly string[];
}

export interface JwtIssuersSectionConfig {
  /** By id in alphabetical order; empty: no Bearer value is read as a JWT. */
  readonly jwtIssuers: readonly JwtIssuerConfig[];
}

export const JWT_ISSUER_PREFIX = 'JWT_ISSUERS_';

/** The asymmetric JWS algorithms a workload JWT may use; `none` and HMAC (a secret shared with the issuer) never. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'EdDSA'] as const;
const DEFAULT_ALGORITHMS = ['RS256', 'ES256'];

/** The fields of `JWT_ISSUERS_<ID>_<FIELD>`, with their documentation rows (docs/configuration.md, `--help`). */
export const JWT_ISSUER_FIELDS = {
  ISSUER: {
    doc: {
      default: '—',
      meaning:
        'an issuer of workload JWTs (CI jobs, Kubernetes service accounts, cloud workload identity) with the id `<ID>` in lower case, `_` read as `-`: its `iss`, exactly (https, or http on localhost only). A request with `Authorization: Bearer <jwt>` whose `iss` is this passes forward auth as `<id>:<username claim>` with its groups, under the access rules (`users.allow: ["ci:repo:org/app:ref:refs/heads/main"]`, `oauth.groups`); one that does not verify is answered 401. See [Workload identity (JWT)](tokens.md#workload-identity-jwt)',
    },
  },
  AUDIENCE: { doc: { default: '— (required)', meaning: 'the `aud` its tokens must carry for this gateway, comma separated for several' } },
  JWKS_URL: {
    doc: { default: '`jwks_uri` of `${ISSUER}/.well-known/openid-configuration`', meaning: "the issuer's key set (https, or http on localhost only)" },
  },
  USERNAME_CLAIM: { doc: { default: '`sub`', meaning: 'the claim that names the workload (a string or an integer)' } },
  GROUPS_CLAIM: { doc: { default: 'none', meaning: 'a claim holding the groups (a list of names, or one name), for `oauth.groups`' } },
  ALGORITHMS: {
    doc: {
      default: '`RS256,ES256`',
      meaning: `the signature algorithms accepted, comma separated, among ${JWT_ALGORITHMS.join(', ')}; \`none\` and HMAC (\`HS256\`…) are refused`,
    },
  },
} as const satisfies Record<string, { readonly doc: RowDoc }>;
export type JwtIssuerField = keyof typeof JWT_ISSUER_FIELDS;

const SUFFIXES = (Object.keys(JWT_ISSUER_FIELDS) as JwtIssuerField[]).sort((a, b) => b.length - a.length);
const KEY = /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/;
const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;
/** A claim name: printable, no spaces. */
const CLAIM = /^[\x21-\x7e]{1,64}$/;

/** Reads `JWT_ISSUERS_<ID>_<FIELD>`; null for any other name. */
export function jwtIssuerVariable(name: string): { key: string; field: JwtIssuerField } | null {
  if (!name.startsWith(JWT_ISSUER_PREFIX)) return null;
  const rest = name.slice(JWT_ISSUER_PREFIX.length);
  for (const field of SUFFIXES) {
    if (rest.length > field.length + 1 && rest.endsWith(`_${field}`)) return { key: rest.slice(0, -(field.length + 1)), field };
  }
  return null;
}

/** A well-formed issuer variable: what flags and the unknown-option warnings accept. */
export function isJwtIssuerVariableName(name: string): boolean {
  const v = jwtIssuerVariable(name);
  return v !== null && KEY.test(v.key);
}

/** Whether a URL may name an issuer or its keys: https, or http on this machine (tests, a local issuer); no credentials, query or fragment. */
function isIssuerUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '' || raw.includes('#') || raw.includes('?')) return false;
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.test(url.hostname));
  } catch {
    return false;
  }
}

const list = (raw: string): string[] => raw.split(/[\s,]+/).filter((s) => s !== '');

/**
 * Every `JWT_ISSUERS_<ID>_…` variable, grouped by id, each group checked: an issuer URL and an
 * audience are required, the algorithms are asymmetric ones, two ids may not share an issuer (the
 * token's `iss` picks the issuer). Problems name variables; values only where they are not secret.
 */
export function readJwtIssuers(r: EnvReader): JwtIssuersSectionConfig {
  const byKey = new Map<string, Map<JwtIssuerField, string>>();
  for (const name of Object.keys(r.env)) {
    const v = jwtIssuerVariable(name);
    const raw = r.get(name);
    if (v === null || raw === undefined) continue;
    if (!KEY.test(v.key) || v.key.length > 32) {
      r.problems.push(`${name}: the <ID> part must be 1 to 32 upper-case letters, digits and single inner _ (read as -)`);
      continue;
    }
    const fields = byKey.get(v.key) ?? new Map<JwtIssuerField, string>();
    fields.set(v.field, raw);
    byKey.set(v.key, fields);
  }
  const issuers: JwtIssuerConfig[] = [];
  const seen = new Map<string, string>();
  for (const key of [...byKey.keys()].sort()) {
    const fields = byKey.get(key) as Map<JwtIssuerField, string>;
    const p = `${JWT_ISSUER_PREFIX}${key}_`;
    const id = key.toLowerCase().replace(/_/g, '-');
    const issuer = fields.get('ISSUER');
    const problems = r.problems.length;
    if (issuer === undefined) r.problems.push(`${p}ISSUER is required: the iss of the tokens this issuer signs`);
    else if (!isIssuerUrl(issuer)) r.problems.push(`${p}ISSUER must be an https URL (http only on localhost) without credentials, query or fragment`);
    else {
      const other = seen.get(issuer);
      if (other !== undefined) r.problems.push(`${p}ISSUER is also the issuer of ${JWT_ISSUER_PREFIX}${other}: one id per issuer (its tokens' iss picks it)`);
      seen.set(issuer, key);
    }
    const audiences = list(fields.get('AUDIENCE') ?? '');
    if (audiences.length === 0) r.problems.push(`${p}AUDIENCE is required: the aud its tokens carry for this gateway`);
    const jwksUrl = fields.get('JWKS_URL');
    if (jwksUrl !== undefined && !isIssuerUrl(jwksUrl))
      r.problems.push(`${p}JWKS_URL must be an https URL (http only on localhost) without credentials, query or fragment`);
    const usernameClaim = fields.get('USERNAME_CLAIM') ?? 'sub';
    const groupsClaim = fields.get('GROUPS_CLAIM');
    for (const [field, claim] of [
      ['USERNAME_CLAIM', usernameClaim],
      ['GROUPS_CLAIM', groupsClaim],
    ] as const) {
      if (claim !== undefined && !CLAIM.test(claim)) r.problems.push(`${p}${field} must be a claim name: 1 to 64 printable characters without spaces`);
    }
    const algorithms = fields.has('ALGORITHMS') ? list(fields.get('ALGORITHMS') ?? '') : DEFAULT_ALGORITHMS;
    const refused = algorithms.filter((a) => !(JWT_ALGORITHMS as readonly string[]).includes(a));
    if (refused.some((a) => /^(none|HS\d+)$/i.test(a)))
      r.problems.push(`${p}ALGORITHMS: ${refused.join(', ')} refused: none and HMAC algorithms would let a shared secret or no key at all sign tokens`);
    else if (refused.length > 0) r.problems.push(`${p}ALGORITHMS: unknown algorithm ${refused.join(', ')} (allowed: ${JWT_ALGORITHMS.join(', ')})`);
    else if (algorithms.length === 0) r.problems.push(`${p}ALGORITHMS must name at least one of ${JWT_ALGORITHMS.join(', ')}`);
    if (r.problems.length > problems || issuer === undefined) continue;
    issuers.push({
      id,
      issuer,
      audiences,
      ...(jwksUrl === undefined ? {} : { jwksUrl }),
      usernameClaim,
      ...(groupsClaim === undefined ? {} : { groupsClaim }),
      algorithms: [...new Set(algorithms)],
    });
  }
  return { jwtIssuers: issuers };
}
