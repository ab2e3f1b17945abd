import type { PlaceOf } from './authelia-access';
import type { ImportedAccount } from './authelia-users';
import { readClientSecretHash } from '../client-secret-hash';

/**
 * The settings of Authelia's `configuration.yml` that have a Portcullis option, as environment
 * variables; every other setting is named in the report as "not carried over".
 */

export interface SettingsImport {
  /** Variables in order; values may hold secrets (the file is written owner-only, never printed). */
  readonly env: readonly (readonly [string, string])[];
  readonly report: readonly string[];
  /** Settings that would let in more than Authelia did and were written stricter. */
  readonly stricter: readonly string[];
  readonly problems: readonly string[];
}

/** Authelia's top-level sections (4.38/4.39 and the older names); anything else is a typo. */
export const AUTHELIA_TOP_KEYS = [
  'theme',
  'certificates_directory',
  'jwt_secret',
  'default_redirection_url',
  'default_2fa_method',
  'log',
  'telemetry',
  'server',
  'totp',
  'webauthn',
  'duo_api',
  'identity_validation',
  'identity_providers',
  'authentication_backend',
  'password_policy',
  'session',
  'regulation',
  'storage',
  'notifier',
  'ntp',
  'access_control',
  'privacy_policy',
  'definitions',
];

const UNITS: Record<string, number> = {
  s: 1,
  sec: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
  w: 604800,
  week: 604800,
  weeks: 604800,
  M: 2592000,
  month: 2592000,
  months: 2592000,
  y: 31536000,
  year: 31536000,
  years: 31536000,
};

/** Authelia's durations (`3600`, `1h`, `1h30m`, `5 minutes`) in seconds; null when unreadable. */
export function durationSeconds(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v !== 'string') return null;
  const text = v.trim();
  if (/^\d+$/.test(text)) return Number(text);
  let total = 0;
  let rest = text;
  while (rest !== '') {
    const m = /^(\d+)\s*([A-Za-z]+)\s*/.exec(rest);
    if (m === null) return null;
    const unit = UNITS[m[2]] ?? (m[2].length > 1 ? UNITS[m[2].toLowerCase()] : undefined);
    if (unit === undefined) return null;
    total += Number(m[1]) * unit;
    rest = rest.slice(m[0].length);
  }
  return total;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const OIDC_SCOPES = ['openid', 'offline_access', 'email', 'profile', 'groups'];
const CLIENT_CARRIED = [
  'client_id',
  'id',
  'client_name',
  'description',
  'client_secret',
  'secret',
  'public',
  'redirect_uris',
  'scopes',
  'token_endpoint_auth_method',
  'authorization_policy',
];

interface Out {
  env: [string, string][];
  report: string[];
  stricter: string[];
  problems: string[];
}

function readSession(session: unknown, place: PlaceOf, out: Out): void {
  if (!isRecord(session)) return;
  const cookies = Array.isArray(session.cookies) ? session.cookies.filter(isRecord) : [];
  const urls = cookies.map((c) => c.authelia_url).filter((u): u is string => typeof u === 'string' && u !== '');
  if (urls.length > 0) {
    out.env.push(['APP_URL', urls.join(',')]);
    out.report.push(`session.cookies[].authelia_url → APP_URL (the cookie domain is its host without the first label; check it with portcullis config check)`);
    for (const c of cookies) {
      if (typeof c.authelia_url !== 'string' || typeof c.domain !== 'string') continue;
      const host = URL.canParse(c.authelia_url) ? new URL(c.authelia_url).hostname.toLowerCase() : null;
      if (host === null) {
        out.problems.push(`${place(['session', 'cookies'])}: authelia_url "${c.authelia_url}" is not a URL`);
        continue;
      }
      const derived = host.split('.').slice(1).join('.');
      if (derived !== c.domain.toLowerCase()) {
        out.report.push(
          `cookie domain: Authelia used ${c.domain}; from ${host} Portcullis derives ${derived || 'a host-only cookie'}: give the gateway a name one label below ${c.domain}`,
        );
      }
    }
  } else out.report.push("not carried over: no session.cookies[].authelia_url; set APP_URL to the gateway's public URL");
  const first = cookies[0] ?? {};
  const expiration = durationSeconds(first.expiration ?? session.expiration ?? null);
  if (expiration !== null && expiration > 0) {
    out.env.push(['SESSION_EXPIRY', String(expiration)]);
    out.report.push(`session expiration → SESSION_EXPIRY=${expiration}`);
  } else if ((first.expiration ?? session.expiration) !== undefined) out.problems.push(`${place(['session', 'expiration'])}: not a duration`);
  for (const key of ['inactivity', 'remember_me', 'same_site', 'name', 'redis', 'default_redirection_url', 'secret', 'domain']) {
    if (session[key] !== undefined || first[key] !== undefined)
      out.report.push(
        `not carried over: session ${key}${key === 'domain' ? ' (the cookie domain follows APP_URL)' : key === 'default_redirection_url' ? ' (Portcullis returns people to the page they asked for, else its own page)' : ''}`,
      );
  }
}

function readRegulation(regulation: unknown, out: Out): void {
  if (!isRecord(regulation)) return;
  if (typeof regulation.max_retries === 'number') {
    out.env.push(['LOGIN_MAX_RETRIES', String(regulation.max_retries)]);
    out.report.push(`regulation.max_retries → LOGIN_MAX_RETRIES=${regulation.max_retries}`);
  }
  const ban = durationSeconds(regulation.ban_time ?? null);
  if (ban !== null) {
    out.env.push(['LOGIN_TIMEOUT', String(ban)]);
    out.report.push(`regulation.ban_time → LOGIN_TIMEOUT=${ban}`);
  }
  if (regulation.find_time !== undefined) out.report.push('not carried over: regulation.find_time (failures count until the lock, without a window)');
}

/**
 * How a confidential client's secret carries over: one kept in clear (`$plaintext$…`, or no prefix)
 * of 32 characters or more as CLIENT_SECRET; a hash the gateway verifies (bcrypt, Argon2, PBKDF2)
 * as CLIENT_SECRET_HASH, so the application keeps its secret; anything else becomes a NEW secret
 * the report asks to give to the application.
 */
function clientSecret(client: Record<string, unknown>, id: string, newSecret: () => string, out: Out): ['CLIENT_SECRET' | 'CLIENT_SECRET_HASH', string] {
  const raw = client.client_secret ?? client.secret;
  const plain = typeof raw === 'string' ? (raw.startsWith('$plaintext$') ? raw.slice('$plaintext$'.length) : raw.startsWith('$') ? null : raw) : null;
  if (plain !== null && plain.length >= 32) return ['CLIENT_SECRET', plain];
  let why = plain === null ? 'it has no secret' : 'its secret is shorter than 32 characters';
  if (plain === null && typeof raw === 'string') {
    const read = readClientSecretHash(raw);
    if (read.ok) {
      out.report.push(`OIDC client ${id}: its hashed secret carries over as CLIENT_SECRET_HASH (the application keeps its secret)`);
      return ['CLIENT_SECRET_HASH', raw];
    }
    why = `its secret is stored as a hash the gateway cannot verify (${read.problem.replace(/; it must be .*$/, '')})`;
  }
  out.report.push(`OIDC client ${id}: ${why}; a NEW secret is in the environment file: give it to the application`);
  return ['CLIENT_SECRET', newSecret()];
}

function readClient(client: Record<string, unknown>, i: number, accounts: readonly ImportedAccount[] | null, newSecret: () => string, out: Out): void {
  const id = String(client.client_id ?? client.id ?? '');
  if (id === '') {
    out.problems.push(`identity_providers.oidc.clients[${i}]: needs client_id`);
    return;
  }
  const key = `OIDC_CLIENTS_${
    id
      .toUpperCase()
      .replace(/[^A-Z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '') || `CLIENT${i + 1}`
  }_`;
  const lines: [string, string][] = [[`${key}CLIENT_ID`, id]];
  const policy = typeof client.authorization_policy === 'string' ? client.authorization_policy : 'two_factor';
  if (policy !== 'one_factor') {
    // Authelia asked these people for a second factor; Portcullis asks it at login of every account
    // with a TOTP secret, so only those accounts may use this client.
    const withTotp = (accounts ?? []).filter((a) => a.totpSecret !== null && !a.disabled).map((a) => a.username);
    if (withTotp.length === 0) {
      out.stricter.push(`OIDC client ${id}: authorization_policy ${policy} needs a second factor and no imported account has one: the client is left out`);
      return;
    }
    lines.push([`${key}ALLOWED_USERS`, withTotp.join(',')]);
    out.stricter.push(`OIDC client ${id}: authorization_policy ${policy}: only accounts with a TOTP secret (${withTotp.join(', ')}) may use it`);
  }
  if (client.public === true) lines.push([`${key}PUBLIC`, 'true']);
  else {
    const [field, value] = clientSecret(client, id, newSecret, out);
    lines.push([`${key}${field}`, value]);
  }
  const uris = Array.isArray(client.redirect_uris) ? client.redirect_uris.map(String) : typeof client.redirect_uris === 'string' ? [client.redirect_uris] : [];
  lines.push([`${key}REDIRECT_URIS`, uris.join(',')]);
  const name = client.client_name ?? client.description;
  if (typeof name === 'string' && name !== '') lines.push([`${key}NAME`, name]);
  if (Array.isArray(client.scopes)) {
    const scopes = client.scopes.map(String);
    const kept = scopes.filter((s) => OIDC_SCOPES.includes(s));
    const dropped = scopes.filter((s) => !OIDC_SCOPES.includes(s));
    lines.push([`${key}SCOPES`, kept.join(' ')]);
    if (dropped.length > 0) out.report.push(`OIDC client ${id}: scopes not carried over: ${dropped.join(', ')}`);
  }
  const method = client.token_endpoint_auth_method;
  if (method === 'client_secret_basic' || method === 'client_secret_post') lines.push([`${key}TOKEN_ENDPOINT_AUTH_METHOD`, method]);
  else if (method !== undefined && method !== 'none')
    out.report.push(`OIDC client ${id}: token_endpoint_auth_method ${String(method)} not carried over (client_secret_basic is used)`);
  const others = Object.keys(client).filter((k) => !CLIENT_CARRIED.includes(k));
  if (others.length > 0) out.report.push(`OIDC client ${id}: not carried over: ${others.join(', ')}`);
  out.env.push(...lines);
  out.report.push(`OIDC client ${id} → ${key}* (redirect URIs ${uris.join(', ')})`);
}

/**
 * Reads the settings that carry over. `accounts` are the imported accounts (null when no users file
 * was given), `newSecret` makes a client secret where the old one cannot be carried over.
 */
export function readAutheliaSettings(
  config: Record<string, unknown>,
  place: PlaceOf,
  accounts: readonly ImportedAccount[] | null,
  newSecret: () => string,
): SettingsImport {
  const out: Out = { env: [], report: [], stricter: [], problems: [] };
  for (const k of Object.keys(config)) if (!AUTHELIA_TOP_KEYS.includes(k)) out.problems.push(`${place([k])}: unknown key "${k}" (not an Authelia setting)`);
  readSession(config.session, place, out);
  readRegulation(config.regulation, out);
  const oidc = isRecord(config.identity_providers) && isRecord(config.identity_providers.oidc) ? config.identity_providers.oidc : null;
  if (oidc !== null && Array.isArray(oidc.clients))
    oidc.clients.forEach((c: unknown, i) => (isRecord(c) ? readClient(c, i, accounts, newSecret, out) : undefined));
  if (oidc !== null) {
    const rest = Object.keys(oidc).filter((k) => k !== 'clients');
    if (rest.length > 0) out.report.push(`not carried over: identity_providers.oidc ${rest.join(', ')} (Portcullis keeps its own signing keys)`);
  }
  if (isRecord(config.totp) && config.totp.issuer !== undefined)
    out.report.push('not carried over: totp.issuer (authenticator entries keep their name; portcullis totp enroll --issuer sets it for new ones)');
  const log = isRecord(config.log) ? config.log.level : undefined;
  if (typeof log === 'string') {
    const level = log === 'trace' ? 'debug' : log;
    if (['debug', 'info', 'warn', 'error'].includes(level)) out.env.push(['LOG_LEVEL', level]);
  }
  const handled = ['session', 'regulation', 'identity_providers', 'totp', 'log', 'access_control'];
  for (const k of Object.keys(config)) if (AUTHELIA_TOP_KEYS.includes(k) && !handled.includes(k)) out.report.push(`not carried over: ${k}`);
  return out;
}
