import { isOAuthProviderId, RESERVED_OAUTH_PROVIDER_IDS } from '../domain/oauth-flow';
import { parseDisplayName } from '../domain/identity-name';
import { parseOAuthWhitelist, type OAuthWhitelist } from '../domain/oauth-whitelist';
import type { EnvReader } from './env';
import type { RowDoc } from './option-spec';

/** A generic OAuth/OIDC provider: `GENERIC_*` (id `generic`) or one of `OAUTH_PROVIDERS_<ID>_…`. */
export interface GenericConfig {
  readonly id: string;
  /** How the login page names it. */
  readonly name: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Endpoints; each one left out is read from the issuer's OpenID Connect discovery document. */
  readonly authUrl?: string;
  readonly tokenUrl?: string;
  readonly userUrl?: string;
  /** The issuer identifier: enables discovery and the RFC 9207 `iss` check. */
  readonly issuer?: string;
  readonly scopes: readonly string[];
  /** `OAUTH_PROVIDERS_<ID>_WHITELIST`, replacing `OAUTH_WHITELIST` for this provider; undefined: the global one. */
  readonly whitelist?: OAuthWhitelist;
}

/** The generic providers of `OAUTH_PROVIDERS_<ID>_…` (part of the oauth section), and what every provider's client reads. */

/**
 * Options whose names hold a variable part: one generic OAuth/OIDC provider per `<ID>`, in the
 * style of tinyauth v4 (`PROVIDERS_<ID>_CLIENT_ID`, ...), under our `OAUTH_` prefix. The id is the
 * `<ID>` in lower case with `_` read as `-` (`OAUTH_PROVIDERS_CORP_SSO_NAME` → `corp-sso`); it names
 * the provider in `/api/oauth/url/<id>`, the callback `/api/oauth/callback/<id>` and the session.
 * Parsing and the rules between the fields are in {@link readPatternProviders}; this table feeds the flags,
 * `--help`, the near-miss warnings and docs/configuration.md.
 */
export const OAUTH_PROVIDER_PREFIX = 'OAUTH_PROVIDERS_';
export interface PatternFieldSpec {
  readonly file?: true;
  readonly secret?: true;
  readonly configures?: true;
  readonly doc: RowDoc | { readonly sameRowAs: string };
}
export const OAUTH_PROVIDER_FIELDS = {
  CLIENT_ID: {
    file: true,
    configures: true,
    doc: {
      label:
        '`OAUTH_PROVIDERS_<ID>_CLIENT_ID`, `OAUTH_PROVIDERS_<ID>_CLIENT_SECRET` (or `OAUTH_PROVIDERS_<ID>_CLIENT_ID_FILE`, `OAUTH_PROVIDERS_<ID>_CLIENT_SECRET_FILE`)',
      default: '—',
      meaning:
        'a generic OAuth/OIDC provider with the id `<ID>` in lower case, `_` read as `-` (`OAUTH_PROVIDERS_CORP_SSO_CLIENT_ID` → `corp-sso`; not `github`, `google`, `generic`, `username`, `basic`, `ldap`, `jwt`, `password`, `totp`, `passkey`). Any number of them; see [OAuth](oauth.md#several-generic-providers-oauth_providers_id_)',
    },
  },
  CLIENT_SECRET: { file: true, secret: true, doc: { sameRowAs: 'CLIENT_ID' } },
  ISSUER: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_ISSUER`',
      default: '—',
      meaning: "the provider's issuer: endpoints not set come from its discovery document, and callbacks' `iss` is checked (as `GENERIC_ISSUER`)",
    },
  },
  AUTH_URL: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_AUTH_URL`, `OAUTH_PROVIDERS_<ID>_TOKEN_URL`, `OAUTH_PROVIDERS_<ID>_USER_INFO_URL`',
      default: '— (required without `ISSUER`)',
      meaning: 'authorization, token and userinfo endpoints',
    },
  },
  TOKEN_URL: { doc: { sameRowAs: 'AUTH_URL' } },
  USER_INFO_URL: { doc: { sameRowAs: 'AUTH_URL' } },
  SCOPES: { doc: { label: '`OAUTH_PROVIDERS_<ID>_SCOPES`', default: '`openid email profile`', meaning: 'comma or space separated, as `GENERIC_SCOPES`' } },
  NAME: { doc: { label: '`OAUTH_PROVIDERS_<ID>_NAME`', default: 'the id', meaning: 'how the login page names the provider (its button)' } },
  WHITELIST: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_WHITELIST`',
      default: '`OAUTH_WHITELIST`',
      meaning: "who may log in through this provider, in `OAUTH_WHITELIST`'s syntax; replaces `OAUTH_WHITELIST` for it",
    },
  },
  REDIRECT_URL: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_REDIRECT_URL`',
      default: '`${APP_URL}/api/oauth/callback/<id>`',
      meaning: "accepted for tinyauth compatibility only when it equals the default: the callback is always the gateway's own",
    },
  },
  INSECURE_SKIP_VERIFY: {
    doc: {
      label: '`OAUTH_PROVIDERS_<ID>_INSECURE_SKIP_VERIFY`',
      default: '`false`',
      meaning: "tinyauth's option, refused when true: trust a private CA with `NODE_EXTRA_CA_CERTS` instead",
    },
  },
} as const satisfies Record<string, PatternFieldSpec>;
export type OAuthProviderField = keyof typeof OAUTH_PROVIDER_FIELDS;

/** Every name ending a provider variable (`CLIENT_SECRET_FILE` included), longest first so that it wins over its own tail. */
const PROVIDER_SUFFIXES: readonly { readonly suffix: string; readonly field: OAuthProviderField; readonly file: boolean }[] = (
  Object.entries(OAUTH_PROVIDER_FIELDS) as [OAuthProviderField, PatternFieldSpec][]
)
  .flatMap(([field, spec]) => [{ suffix: field, field, file: false }, ...(spec.file ? [{ suffix: `${field}_FILE`, field, file: true }] : [])])
  .sort((a, b) => b.suffix.length - a.suffix.length);

/** A provider variable read apart: `<ID>` as written, the id it means, and the field. */
export interface ProviderVariable {
  /** `<ID>` as written in the name (`CORP_SSO`). */
  readonly key: string;
  /** The provider id (`corp-sso`); not yet validated. */
  readonly id: string;
  readonly field: OAuthProviderField;
  /** The name is the `_FILE` variant. */
  readonly file: boolean;
}

/** Reads `OAUTH_PROVIDERS_<ID>_<FIELD>[_FILE]`; null for any other name (a known prefix with an unknown field included). */
export function providerVariable(name: string): ProviderVariable | null {
  if (!name.startsWith(OAUTH_PROVIDER_PREFIX)) return null;
  const rest = name.slice(OAUTH_PROVIDER_PREFIX.length);
  for (const { suffix, field, file } of PROVIDER_SUFFIXES) {
    if (rest.length > suffix.length + 1 && rest.endsWith(`_${suffix}`)) {
      const key = rest.slice(0, -(suffix.length + 1));
      return { key, id: key.toLowerCase().replace(/_/g, '-'), field, file };
    }
  }
  return null;
}

/** True when `name` is a well-formed provider variable whose id could be valid: what flags and near-miss warnings accept. */
export function isProviderVariableName(name: string): boolean {
  const v = providerVariable(name);
  return v !== null && /^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(v.key);
}

/** Pattern fields (and their `_FILE` variants) of which any, when set for some `<ID>`, turns the demo off. */
export const CONFIGURING_PROVIDER_FIELDS: ReadonlySet<OAuthProviderField> = new Set(
  (Object.entries(OAUTH_PROVIDER_FIELDS) as [OAuthProviderField, PatternFieldSpec][]).filter(([, spec]) => spec.configures === true).map(([field]) => field),
);

/** Any http(s) URL option, by name and value, without trailing slashes; undefined when unset or not one (the problem reported). */
export function httpUrlValue(r: EnvReader, name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.hash === '')
      return raw.replace(/\/+$/, '');
  } catch {
    // reported below
  }
  r.problems.push(`${name} must be an http(s) URL without credentials or fragment`);
  return undefined;
}

/**
 * `<prefix>_CLIENT_ID` and `<prefix>_CLIENT_SECRET` (or their `_FILE`s), with the options
 * `required` alongside: a provider is on when its client id and secret are set; anything less is
 * a mistake worth stopping for.
 */
export function oauthClient(r: EnvReader, prefix: string, required: readonly string[]): { clientId: string; clientSecret: string } | undefined {
  const clientId = r.fromFile(`${prefix}_CLIENT_ID`)?.trim();
  const clientSecret = r.fromFile(`${prefix}_CLIENT_SECRET`)?.trim();
  const others = required.filter((name) => r.get(name) !== undefined);
  if (clientId === undefined && clientSecret === undefined) {
    if (others.length > 0)
      r.problems.push(
        `${others.join(', ')} set but ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET are not: configure the ${prefix.toLowerCase()} provider fully or not at all`,
      );
    return undefined;
  }
  const missing = [
    ...(clientId === undefined || clientId === '' ? [`${prefix}_CLIENT_ID`] : []),
    ...(clientSecret === undefined || clientSecret === '' ? [`${prefix}_CLIENT_SECRET`] : []),
    ...required.filter((name) => r.get(name) === undefined),
  ];
  if (missing.length > 0) {
    r.problems.push(`the ${prefix.toLowerCase()} OAuth provider is half-configured: ${missing.join(', ')} missing`);
    return undefined;
  }
  // OAuth client credentials are printable ASCII (RFC 6749 appendix A); anything else is a paste accident.
  const unprintable = [
    [`${prefix}_CLIENT_ID`, clientId],
    [`${prefix}_CLIENT_SECRET`, clientSecret],
  ].filter(([, v]) => !/^[\x20-\x7e]+$/.test(v as string));
  if (unprintable.length > 0) {
    r.problems.push(`${unprintable.map(([n]) => n).join(' and ')} may hold only printable ASCII characters`);
    return undefined;
  }
  if (r.placeholder(`${prefix}_CLIENT_SECRET`, clientSecret, `use the client secret your ${prefix.toLowerCase()} OAuth app shows`)) return undefined;
  return { clientId: clientId as string, clientSecret: clientSecret as string };
}

/** The characters RFC 6749 allows in a scope token. */
export const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** An issuer identifier: an https (or, for local tests, http) URL without query or fragment (RFC 8414 section 2). */
export function issuerValue(r: EnvReader, name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.search === '' && url.hash === '')
      return raw;
  } catch {
    // reported below
  }
  r.problems.push(`${name} must be an http(s) URL without credentials, query or fragment (the issuer identifier)`);
  return undefined;
}

/**
 * The `OAUTH_PROVIDERS_<ID>_…` providers: every variable of the pattern, grouped by id, each
 * group checked like the GENERIC_ options (client id and secret, endpoints or an issuer) plus
 * its own name, scopes and whitelist. Problems name the variables, never a value.
 */
export function readPatternProviders(r: EnvReader, appUrl: string): GenericConfig[] {
  const byId = new Map<string, { key: string; fields: Set<OAuthProviderField> }>();
  for (const name of Object.keys(r.env)) {
    const v = providerVariable(name);
    if (v === null || r.get(name) === undefined) continue;
    if (!/^[A-Z0-9]+(?:_[A-Z0-9]+)*$/.test(v.key) || !isOAuthProviderId(v.id)) {
      r.problems.push(`${name}: the provider id "${v.key}" must be 1 to 32 letters, digits and single inner _ (read as -)`);
      continue;
    }
    if (RESERVED_OAUTH_PROVIDER_IDS.includes(v.id)) {
      r.problems.push(
        `${name}: the provider id ${v.id} is taken (${RESERVED_OAUTH_PROVIDER_IDS.join(', ')}); configure github, google and generic with their own options`,
      );
      continue;
    }
    const entry = byId.get(v.id) ?? { key: v.key, fields: new Set<OAuthProviderField>() };
    entry.fields.add(v.field);
    byId.set(v.id, entry);
  }
  const providers: GenericConfig[] = [];
  for (const id of [...byId.keys()].sort()) {
    const { key } = byId.get(id) as { key: string };
    const prefix = `OAUTH_PROVIDERS_${key}`;
    const value = (field: OAuthProviderField): string | undefined => r.get(`${prefix}_${field}`);
    const issuer = issuerValue(r, `${prefix}_ISSUER`, value('ISSUER'));
    const endpoints = (['AUTH_URL', 'TOKEN_URL', 'USER_INFO_URL'] as const).map((f) => `${prefix}_${f}`);
    const credentialsSet = ['CLIENT_ID', 'CLIENT_ID_FILE', 'CLIENT_SECRET', 'CLIENT_SECRET_FILE'].some((f) => r.get(`${prefix}_${f}`) !== undefined);
    if (!credentialsSet) {
      r.problems.push(`the OAuth provider ${id} is half-configured: ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET missing`);
      continue;
    }
    const creds = oauthClient(r, prefix, issuer === undefined ? endpoints : []);
    const scopes = (value('SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter((s) => s !== '');
    if (scopes.some((s) => !SCOPE.test(s))) r.problems.push(`${prefix}_SCOPES holds a character a scope may not contain`);
    let whitelist: OAuthWhitelist | undefined;
    const whitelistRaw = value('WHITELIST');
    if (whitelistRaw !== undefined) {
      const parsed = parseOAuthWhitelist(whitelistRaw);
      if (parsed.ok) whitelist = parsed.value;
      else r.problems.push(`${prefix}_WHITELIST ${parsed.error}`);
    }
    const redirect = value('REDIRECT_URL');
    const callback = `${appUrl}/api/oauth/callback/${id}`;
    if (redirect !== undefined && redirect.replace(/\/+$/, '') !== callback)
      r.problems.push(`${prefix}_REDIRECT_URL must be ${callback} or unset: the gateway's callback for a provider is always its own`);
    const insecure = value('INSECURE_SKIP_VERIFY');
    if (insecure !== undefined && !['false', '0', 'no', 'off'].includes(insecure.toLowerCase()))
      r.problems.push(`${prefix}_INSECURE_SKIP_VERIFY is not supported: trust the provider's CA with NODE_EXTRA_CA_CERTS instead of turning TLS checks off`);
    const name = value('NAME') ?? id;
    // The name reaches the login page and /api/app: the same rule as a display name, plus a length a button can show.
    if (name.length > 64 || !parseDisplayName(name).ok) r.problems.push(`${prefix}_NAME must be at most 64 printable characters`);
    if (creds === undefined) continue;
    providers.push({
      ...creds,
      id,
      name,
      issuer,
      authUrl: httpUrlValue(r, `${prefix}_AUTH_URL`, value('AUTH_URL')),
      tokenUrl: httpUrlValue(r, `${prefix}_TOKEN_URL`, value('TOKEN_URL')),
      userUrl: httpUrlValue(r, `${prefix}_USER_INFO_URL`, value('USER_INFO_URL')),
      scopes,
      whitelist,
    });
  }
  return providers;
}
