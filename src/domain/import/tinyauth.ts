import { compileIpRanges, inRanges, parseIpInto } from '../ip-address';
import { err, ok, type Result } from '../result';
import type { AutheliaOutcome, CheckRequest, PlaceOf } from './authelia-access';

/**
 * tinyauth's configuration (environment v3–v5, per-app Docker labels `tinyauth.apps.<name>.…`, v5's
 * YAML `apps:` and `TINYAUTH_APPS_<NAME>_…` variables) as Portcullis's environment and rules file.
 * Portcullis's rules were modelled on tinyauth's, so most names carry over unchanged; what does not
 * is named in the report, and nothing is written wider than tinyauth decided.
 */

export interface TinyauthInput {
  readonly env: { readonly text: string; readonly file: string };
  readonly compose: { readonly data: unknown; readonly place: PlaceOf } | null;
  readonly config: { readonly data: unknown; readonly place: PlaceOf } | null;
  /** Where the files will be written (a Basic password from a label becomes a file there). */
  readonly outDir: string;
}

export interface TinyauthImport {
  readonly env: readonly (readonly [string, string])[];
  readonly rules: Record<string, unknown>;
  readonly report: readonly string[];
  readonly stricter: readonly string[];
  /** Files besides the rules and the environment: a Basic password from a label, owner-only. */
  readonly secretFiles: readonly { readonly name: string; readonly text: string }[];
  /** tinyauth's own decision, for --check. */
  readonly decide: (r: CheckRequest) => AutheliaOutcome;
}

/** Names that mean the same in Portcullis (tinyauth v3 spelling). */
const SAME = new Set([
  'APP_URL',
  'SECRET',
  'SECRET_FILE',
  'USERS',
  'USERS_FILE',
  'COOKIE_SECURE',
  'SESSION_EXPIRY',
  'LOGIN_MAX_RETRIES',
  'LOGIN_TIMEOUT',
  'OAUTH_WHITELIST',
  'OAUTH_AUTO_REDIRECT',
  'GITHUB_CLIENT_ID',
  'GITHUB_CLIENT_SECRET',
  'GITHUB_CLIENT_SECRET_FILE',
  'GOOGLE_CLIENT_ID',
  'GOOGLE_CLIENT_SECRET',
  'GOOGLE_CLIENT_SECRET_FILE',
  'GENERIC_CLIENT_ID',
  'GENERIC_CLIENT_SECRET',
  'GENERIC_CLIENT_SECRET_FILE',
  'GENERIC_AUTH_URL',
  'GENERIC_TOKEN_URL',
  'GENERIC_USER_URL',
  'GENERIC_SCOPES',
  'GENERIC_NAME',
  'DISABLE_CONTINUE',
  'APP_TITLE',
  'FORGOT_PASSWORD_MESSAGE',
  'BACKGROUND_IMAGE',
  'PORT',
  'ADDRESS',
  'TRUSTED_PROXIES',
  'LDAP_ADDRESS',
  'LDAP_BIND_DN',
  'LDAP_BIND_PASSWORD',
  'LDAP_BASE_DN',
  'LDAP_SEARCH_FILTER',
  'LDAP_INSECURE',
  'LOG_LEVEL',
]);

/** tinyauth v4/v5 names (after the `TINYAUTH_` prefix) and their Portcullis names. */
const RENAMED: Record<string, string> = {
  APPURL: 'APP_URL',
  AUTH_USERS: 'USERS',
  AUTH_USERSFILE: 'USERS_FILE',
  AUTH_SECURECOOKIE: 'COOKIE_SECURE',
  AUTH_SESSIONEXPIRY: 'SESSION_EXPIRY',
  AUTH_LOGINMAXRETRIES: 'LOGIN_MAX_RETRIES',
  AUTH_LOGINTIMEOUT: 'LOGIN_TIMEOUT',
  AUTH_TRUSTEDPROXIES: 'TRUSTED_PROXIES',
  SERVER_TRUSTEDPROXIES: 'TRUSTED_PROXIES',
  SERVER_PORT: 'PORT',
  SERVER_ADDRESS: 'ADDRESS',
  OAUTH_WHITELIST: 'OAUTH_WHITELIST',
  OAUTH_AUTOREDIRECT: 'OAUTH_AUTO_REDIRECT',
  LDAP_ADDRESS: 'LDAP_ADDRESS',
  LDAP_BINDDN: 'LDAP_BIND_DN',
  LDAP_BINDPASSWORD: 'LDAP_BIND_PASSWORD',
  LDAP_BASEDN: 'LDAP_BASE_DN',
  LDAP_SEARCHFILTER: 'LDAP_SEARCH_FILTER',
  LDAP_INSECURE: 'LDAP_INSECURE',
  UI_TITLE: 'APP_TITLE',
  UI_FORGOTPASSWORDMESSAGE: 'FORGOT_PASSWORD_MESSAGE',
  UI_BACKGROUNDIMAGE: 'BACKGROUND_IMAGE',
  LOG_LEVEL: 'LOG_LEVEL',
};

const PROVIDER_FIELDS: Record<string, string> = {
  CLIENTID: 'CLIENT_ID',
  CLIENTSECRET: 'CLIENT_SECRET',
  CLIENTSECRETFILE: 'CLIENT_SECRET_FILE',
  AUTHURL: 'AUTH_URL',
  TOKENURL: 'TOKEN_URL',
  USERINFOURL: 'USER_INFO_URL',
  SCOPES: 'SCOPES',
  NAME: 'NAME',
  REDIRECTURL: 'REDIRECT_URL',
};

/** Per-app fields, as label paths after `tinyauth.apps.<name>.` (and v5 YAML / env spellings). */
const APP_FIELDS = [
  'domain',
  'config.domain',
  'users.allow',
  'users.block',
  'oauth.whitelist',
  'oauth.groups',
  'ip.allow',
  'ip.block',
  'ip.bypass',
  'path.allow',
  'path.block',
  'response.headers',
  'response.basicauth.username',
  'response.basicauth.password',
  'response.basicauth.passwordfile',
  'response.basicauth.password_file',
  'ldap.groups',
];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads `KEY=value` lines (quotes around the value removed, `#` comments and `export` skipped). */
export function parseEnvFile(text: string, file: string): Result<[string, string, number][], string[]> {
  const out: [string, string, number][] = [];
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim().replace(/^export\s+/, '');
    if (line === '' || line.startsWith('#')) return;
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (m === null) {
      problems.push(`${file}: line ${i + 1}: expected NAME=value`);
      return;
    }
    const value = /^(["']).*\1$/.test(m[2]) ? m[2].slice(1, -1) : m[2];
    out.push([m[1], value, i + 1]);
  });
  return problems.length > 0 ? err(problems) : ok(out);
}

type AppDoc = Record<string, string>;

function setField(apps: Map<string, AppDoc>, app: string, field: string, value: string): void {
  const doc = apps.get(app) ?? {};
  doc[field === 'config.domain' ? 'domain' : field === 'response.basicauth.password_file' ? 'response.basicauth.passwordfile' : field] = value;
  apps.set(app, doc);
}

function envSettings(
  entries: readonly [string, string, number][],
  apps: Map<string, AppDoc>,
  out: { env: [string, string][]; report: string[]; policyDeny: boolean },
): string[] {
  const problems: string[] = [];
  for (const [name, value, line] of entries) {
    const bare = name.startsWith('TINYAUTH_') ? name.slice('TINYAUTH_'.length) : name;
    const app = /^APPS_([A-Z0-9]+)_(.+)$/.exec(bare);
    if (app !== null) {
      const field = app[2].toLowerCase().replace(/_/g, '.');
      if (!APP_FIELDS.includes(field)) problems.push(`line ${line}: ${name}: unknown app field "${field}"`);
      else setField(apps, app[1].toLowerCase(), field, value);
      continue;
    }
    const provider = /^OAUTH_PROVIDERS_([A-Z0-9]+)_([A-Z]+)$/.exec(bare);
    let target: string | null = null;
    if (provider !== null && PROVIDER_FIELDS[provider[2]] !== undefined) target = `OAUTH_PROVIDERS_${provider[1]}_${PROVIDER_FIELDS[provider[2]]}`;
    else if (/^OAUTH_PROVIDERS_[A-Z0-9]+_(CLIENT_ID|CLIENT_SECRET|CLIENT_SECRET_FILE|AUTH_URL|TOKEN_URL|USER_INFO_URL|SCOPES|NAME|REDIRECT_URL)$/.test(bare))
      target = bare;
    else if (name.startsWith('TINYAUTH_') && RENAMED[bare] !== undefined) target = RENAMED[bare];
    else if (!name.startsWith('TINYAUTH_') && SAME.has(name)) target = name;
    if (bare === 'AUTH_ACLS_POLICY') {
      out.policyDeny = value.trim().toLowerCase() === 'deny';
      out.report.push(`${name}=${value} → default_policy: ${out.policyDeny ? 'deny' : 'allow_authenticated'}`);
      continue;
    }
    if (target === 'LOG_LEVEL') {
      const level = value.toLowerCase() === 'trace' ? 'debug' : value.toLowerCase();
      if (!['debug', 'info', 'warn', 'error'].includes(level)) {
        out.report.push(`not carried over: ${name}=${value} (LOG_LEVEL takes debug, info, warn, error)`);
        continue;
      }
      out.env.push(['LOG_LEVEL', level]);
      continue;
    }
    if (target === null) {
      out.report.push(
        `not carried over: ${name}${/SKIP_SSL|INSECURE_SKIP/.test(bare) ? ' (Portcullis verifies certificates; trust a private CA with NODE_EXTRA_CA_CERTS)' : ''}`,
      );
      continue;
    }
    out.env.push([target, value]);
    out.report.push(target === name ? `${name}: carried over unchanged` : `${name} → ${target}`);
  }
  return problems;
}

function composeLabels(compose: NonNullable<TinyauthInput['compose']>, apps: Map<string, AppDoc>): string[] {
  const problems: string[] = [];
  if (!isRecord(compose.data) || !isRecord(compose.data.services)) return [`${compose.place([])}: must have services:`];
  for (const [service, def] of Object.entries(compose.data.services)) {
    if (!isRecord(def) || def.labels === undefined) continue;
    const labels: [string, string, (string | number)[]][] = [];
    if (Array.isArray(def.labels)) {
      def.labels.forEach((l: unknown, i) => {
        const text = String(l);
        const eq = text.indexOf('=');
        labels.push([eq === -1 ? text : text.slice(0, eq), eq === -1 ? '' : text.slice(eq + 1), ['services', service, 'labels', i]]);
      });
    } else if (isRecord(def.labels)) for (const [k, v] of Object.entries(def.labels)) labels.push([k, String(v ?? ''), ['services', service, 'labels', k]]);
    for (const [key, escaped, path] of labels) {
      if (!key.startsWith('tinyauth.')) continue;
      // Compose writes a literal $ as $$.
      const value = escaped.replace(/\$\$/g, '$');
      const m = /^tinyauth\.apps\.([A-Za-z0-9_-]+)\.(.+)$/.exec(key);
      if (m === null) {
        problems.push(`${compose.place(path)}: "${key}" is not tinyauth.apps.<name>.<field>`);
        continue;
      }
      const headers = /^response\.headers\.(.+)$/.exec(m[2]);
      if (headers !== null)
        setField(
          apps,
          m[1],
          `response.headers`,
          `${apps.get(m[1])?.['response.headers'] ?? ''}${apps.get(m[1])?.['response.headers'] ? ',' : ''}${headers[1]}=${value}`,
        );
      else if (!APP_FIELDS.includes(m[2])) problems.push(`${compose.place(path)}: unknown field "${m[2]}"${''}`);
      else setField(apps, m[1], m[2], value);
    }
  }
  return problems;
}

function yamlApps(config: NonNullable<TinyauthInput['config']>, apps: Map<string, AppDoc>): string[] {
  const problems: string[] = [];
  if (!isRecord(config.data)) return [`${config.place([])}: must be a mapping`];
  const list = config.data.apps;
  if (list === undefined) return problems;
  if (!isRecord(list)) return [`${config.place(['apps'])}: must be a mapping of app name to settings`];
  const walk = (app: string, v: unknown, path: string[]): void => {
    const field = path.join('.');
    if (isRecord(v) && field !== 'response.headers') {
      for (const [k, x] of Object.entries(v)) walk(app, x, [...path, k]);
      return;
    }
    if (field === 'response.headers' && isRecord(v)) {
      setField(
        apps,
        app,
        field,
        Object.entries(v)
          .map(([k, x]) => `${k}=${String(x)}`)
          .join(','),
      );
      return;
    }
    if (!APP_FIELDS.includes(field)) problems.push(`${config.place(['apps', app, ...path])}: unknown field "${field}"`);
    else setField(apps, app, field, Array.isArray(v) ? v.map(String).join(',') : String(v ?? ''));
  };
  for (const [app, v] of Object.entries(list)) walk(app, v, []);
  return problems;
}

const list = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function appRules(name: string, doc: AppDoc, report: string[], secrets: { name: string; text: string }[], outDir: string): Record<string, unknown> {
  const app: Record<string, unknown> = {};
  if (doc.domain !== undefined) app.domain = list(doc.domain);
  const users: Record<string, string[]> = {};
  if (list(doc['users.allow']).length > 0) users.allow = list(doc['users.allow']);
  if (list(doc['users.block']).length > 0) users.block = list(doc['users.block']);
  if (Object.keys(users).length > 0) app.users = users;
  const oauth: Record<string, string[]> = {};
  if (list(doc['oauth.whitelist']).length > 0) oauth.whitelist = list(doc['oauth.whitelist']);
  const groups = [...list(doc['oauth.groups']), ...list(doc['ldap.groups'])];
  if (groups.length > 0) oauth.groups = groups;
  if (Object.keys(oauth).length > 0) app.oauth = oauth;
  const ip: Record<string, string[]> = {};
  for (const k of ['allow', 'block', 'bypass']) if (list(doc[`ip.${k}`]).length > 0) ip[k] = list(doc[`ip.${k}`]);
  if (Object.keys(ip).length > 0) app.ip = ip;
  const path: Record<string, string[]> = {};
  if (list(doc['path.allow']).length > 0) path.allow = list(doc['path.allow']);
  if (list(doc['path.block']).length > 0) path.block = list(doc['path.block']);
  if (Object.keys(path).length > 0) app.path = path;
  const response: Record<string, unknown> = {};
  if (doc['response.headers'] !== undefined) {
    const headers: Record<string, string> = {};
    for (const h of list(doc['response.headers'])) {
      const eq = h.indexOf('=');
      if (eq > 0) headers[h.slice(0, eq)] = h.slice(eq + 1);
    }
    response.headers = headers;
  }
  if (doc['response.basicauth.username'] !== undefined) {
    let file = doc['response.basicauth.passwordfile'];
    if (file === undefined && doc['response.basicauth.password'] !== undefined) {
      // Portcullis reads the upstream's Basic password from a file, never from the rules.
      const secret = `basicauth-${name}`;
      secrets.push({ name: secret, text: `${doc['response.basicauth.password']}\n` });
      file = `${outDir.replace(/\/+$/, '')}/${secret}`;
      report.push(`app ${name}: response.basicauth.password → the file ${secret} (password_file)`);
    }
    if (file !== undefined) response.basicauth = { username: doc['response.basicauth.username'], password_file: file };
  }
  if (Object.keys(response).length > 0) app.response = response;
  report.push(`app ${name}: ${Object.keys(doc).sort().join(', ')} carried over`);
  return app;
}

/** tinyauth's documented order: address block/bypass/allow, public paths, login, users, whitelist, groups. */
function tinyauthDecide(apps: ReadonlyMap<string, AppDoc>, policyDeny: boolean, r: CheckRequest): AutheliaOutcome {
  let doc: AppDoc | undefined;
  for (const d of apps.values()) if (list(d.domain).some((x) => x.toLowerCase() === r.host)) doc = d;
  if (doc === undefined) doc = apps.get(r.host.split('.')[0]);
  if (doc === undefined) return policyDeny ? 'deny' : r.user === null ? 'login' : 'allow';
  const addr = new Uint32Array(4);
  const family = parseIpInto(r.ip, addr);
  const inList = (k: string): boolean => family !== 0 && inRanges(compileIpRanges(list(doc?.[k])).set, family, addr);
  if (family === 0 || inList('ip.block')) return 'deny';
  if (inList('ip.bypass')) return 'allow';
  if (list(doc['ip.allow']).length > 0 && !inList('ip.allow')) return 'deny';
  const path = r.uri.split('?')[0];
  const matches = (k: string): boolean => list(doc?.[k]).some((p) => new RegExp(p).test(path));
  if (list(doc['path.allow']).length > 0 && matches('path.allow')) return 'allow';
  if (list(doc['path.block']).length > 0 && !matches('path.block')) return 'allow';
  if (r.user === null) return 'login';
  if (policyDeny && doc['users.allow'] === undefined && doc['oauth.whitelist'] === undefined) return 'deny';
  const named = (k: string): boolean =>
    list(doc?.[k]).some((u) => {
      const re = /^\/(.*)\/(i?)$/.exec(u);
      return re !== null ? new RegExp(re[1], re[2]).test(r.user?.username ?? '') : u.toLowerCase() === r.user?.username.toLowerCase();
    });
  if (named('users.block')) return 'deny';
  if (list(doc['users.allow']).length > 0 && !named('users.allow')) return 'deny';
  const groups = [...list(doc['oauth.groups']), ...list(doc['ldap.groups'])];
  if (groups.length > 0 && !groups.some((g) => r.user?.groups.includes(g))) return 'deny';
  return 'allow';
}

/** Reads everything given and translates it. */
export function importTinyauth(input: TinyauthInput): Result<TinyauthImport, string[]> {
  const entries = parseEnvFile(input.env.text, input.env.file);
  if (!entries.ok) return err(entries.error);
  const apps = new Map<string, AppDoc>();
  const out = { env: [] as [string, string][], report: [] as string[], policyDeny: false };
  const problems = envSettings(entries.value, apps, out).map((p) => `${input.env.file}: ${p}`);
  if (input.compose !== null) problems.push(...composeLabels(input.compose, apps));
  if (input.config !== null) problems.push(...yamlApps(input.config, apps));
  if (problems.length > 0) return err(problems);
  const stricter: string[] = [];
  const rules: Record<string, unknown> = { default_policy: out.policyDeny ? 'deny' : 'allow_authenticated' };
  const appsDoc: Record<string, unknown> = {};
  const secretFiles: { name: string; text: string }[] = [];
  for (const [name, doc] of apps) {
    const app = appRules(name, doc, out.report, secretFiles, input.outDir);
    if (out.policyDeny && doc['users.allow'] === undefined && doc['oauth.whitelist'] === undefined) {
      // Deny by default: an application that lists nobody lets nobody in (after its public paths
      // and bypass addresses), the strictest reading of tinyauth's ACL policy.
      app.users = { ...(app.users as Record<string, unknown> | undefined), block: [...((app.users as { block?: string[] } | undefined)?.block ?? []), '/^/'] };
      stricter.push(`app ${name}: the ACL policy is deny and the app lists no users or whitelist: every logged-in person is refused there`);
    }
    appsDoc[name] = app;
  }
  if (apps.size > 0) rules.apps = appsDoc;
  return ok({ env: out.env, rules, report: out.report, stricter, secretFiles, decide: (r) => tinyauthDecide(apps, out.policyDeny, r) });
}
