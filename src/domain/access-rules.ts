import type { AccessDecision, DenyReason } from './access-decision';
import { compileIpRanges, EMPTY_RANGES, type IpRangeSet } from './ip-address';
import { LOGIN_METHODS, type LoginMethod, type Requirement } from './login-methods';
import { err, ok, type Result } from './result';

/**
 * Per-application access rules, compiled once from a plain document (what a YAML file parses
 * into) so that evaluating them per request compiles nothing: regexes, CIDRs, host tables and
 * even the decisions themselves are built here.
 */

export type TokenPolicy = 'default' | 'allow' | 'deny';

export type DefaultPolicy = 'allow_authenticated' | 'deny';

/** Usernames or e-mails: literals compared case-insensitively, `/regex/flags` entries tested as written. */
export interface NameMatcher {
  readonly literals: ReadonlySet<string>;
  readonly patterns: readonly RegExp[];
  readonly size: number;
}

/** A path rule: matched on every reading of the path (see path-readings), or on `path?query` when the rule asks for the query. */
export interface PathPattern {
  readonly regex: RegExp;
  readonly query: boolean;
}

/**
 * One entry of an application's `paths` (issue 33): a request whose path (and method, when listed)
 * matches it must also pass its users, groups and requirement. Entries are tried in order and the
 * first match decides; an entry only ever narrows what the application's own rules let through.
 */
export interface PathRule {
  /** Where it stands in the file (`apps.wiki.paths[0]`), for `explain` and refusals. */
  readonly where: string;
  readonly match: PathPattern;
  /** Upper-case methods it applies to; null: every method. */
  readonly methods: ReadonlySet<string> | null;
  readonly usersAllow: NameMatcher;
  readonly usersBlock: NameMatcher;
  readonly groups: ReadonlySet<string>;
  /** What must have been proven, how and how recently; null: nothing more than the application asks. */
  readonly require: Requirement | null;
}

export interface AppRules {
  /** The application's name; null for the `default` section and for the implicit default. */
  readonly name: string | null;
  readonly usersAllow: NameMatcher;
  readonly usersBlock: NameMatcher;
  readonly oauthWhitelist: NameMatcher;
  readonly groups: ReadonlySet<string>;
  readonly pathAllow: readonly PathPattern[];
  readonly pathBlock: readonly PathPattern[];
  readonly ipAllow: IpRangeSet;
  readonly ipBlock: IpRangeSet;
  readonly ipBypass: IpRangeSet;
  readonly requireTotp: boolean;
  /** Per-path requirements, in order (issue 33); empty when the application has none. */
  readonly paths: readonly PathRule[];
  /**
   * Access tokens (issue 32): `deny` refuses them; `allow` lets them pass even where a second
   * factor is required; `default` lets them pass except where a second factor is required.
   */
  readonly tokens: TokenPolicy;
  /** `response.assertion: true`: the upstream gets a signed identity assertion (`Remote-Assertion`). */
  readonly assertion: boolean;
  /** The allow decision, with the configured upstream headers (and `Authorization` for basicauth). */
  readonly allowed: AccessDecision;
  /** One ready decision per reason, so a refusal allocates nothing. */
  readonly denied: Readonly<Record<DenyReason, AccessDecision>>;
}

export interface AccessRules {
  readonly defaultPolicy: DefaultPolicy;
  readonly apps: readonly AppRules[];
  /** Exact host → application. */
  readonly byHost: ReadonlyMap<string, AppRules>;
  /** `*.suffix` entries as `.suffix`, longest first. */
  readonly bySuffix: readonly { readonly suffix: string; readonly app: AppRules }[];
  /** First host label → application, for applications without `domain`. */
  readonly byLabel: ReadonlyMap<string, AppRules>;
  /** Rules for hosts no application claims: the `default` section, else what `default_policy` implies. */
  readonly fallback: AppRules;
}

/** Reads a secret file named in the rules (`password_file`); null when it cannot be read. */
export type SecretReader = (path: string) => string | null;

const DENY_REASONS: readonly DenyReason[] = [
  'ip_blocked',
  'ip_not_allowed',
  'bad_client_ip',
  'user_blocked',
  'user_not_allowed',
  'group_missing',
  'totp_required',
  'token_scope',
  'tokens_denied',
  'step_up_impossible',
  'default_deny',
  'rules_unavailable',
];
const NETWORK_REASONS: ReadonlySet<DenyReason> = new Set<DenyReason>(['ip_blocked', 'ip_not_allowed', 'bad_client_ip']);

const EMPTY_NAMES: NameMatcher = Object.freeze({ literals: new Set<string>(), patterns: [], size: 0 });
const APP_KEYS = new Set(['domain', 'users', 'oauth', 'path', 'paths', 'ip', 'require_second_factor', 'require_totp', 'tokens', 'response']);
const PATH_RULE_KEYS = ['match', 'query', 'methods', 'users', 'groups', 'require'];
const REQUIRE_KEYS = ['second_factor', 'login', 'max_age'];
const METHOD_NAME = /^[A-Za-z]{1,32}$/;
/** The longest `max_age` a rule may ask (a year, in seconds): anything longer is surely a unit mistake. */
const MAX_AGE_LIMIT = 366 * 24 * 3600;
const TOP_KEYS = new Set(['default_policy', 'apps', 'default']);
const APP_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$/;
const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const HEADER_VALUE = /^[\u0020-\u007e\u00a0-\u00ff]*$/;
/** Headers the gateway itself owns on a forward-auth answer; rules cannot set them. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'location',
  'set-cookie',
  'cache-control',
  'x-portcullis-location',
  'x-content-type-options',
  'retry-after',
]);

function decisionsFor(name: string | null, headers: Readonly<Record<string, string>>, assertion = false): Pick<AppRules, 'allowed' | 'denied'> {
  const denied = {} as Record<DenyReason, AccessDecision>;
  for (const reason of DENY_REASONS) {
    denied[reason] = Object.freeze({
      kind: 'deny' as const,
      reason,
      ...(name === null ? {} : { app: name }),
      ...(NETWORK_REASONS.has(reason) ? { network: true } : {}),
    });
  }
  const allowed = assertion ? { kind: 'allow' as const, headers, assertion: true } : { kind: 'allow' as const, headers };
  return { allowed: Object.freeze(allowed), denied: Object.freeze(denied) };
}

function emptyApp(name: string | null): AppRules {
  return Object.freeze({
    name,
    usersAllow: EMPTY_NAMES,
    usersBlock: EMPTY_NAMES,
    oauthWhitelist: EMPTY_NAMES,
    groups: new Set<string>(),
    pathAllow: [],
    pathBlock: [],
    ipAllow: EMPTY_RANGES,
    ipBlock: EMPTY_RANGES,
    ipBypass: EMPTY_RANGES,
    requireTotp: false,
    paths: [],
    tokens: 'default',
    assertion: false,
    ...decisionsFor(name, Object.freeze({})),
  });
}

/** Rules that let every logged-in person through everywhere: what the gateway does without a rules file. */
export function allowAuthenticatedRules(): AccessRules {
  return { defaultPolicy: 'allow_authenticated', apps: [], byHost: new Map(), bySuffix: [], byLabel: new Map(), fallback: emptyApp(null) };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Collects problems with their location in the document (`apps.wiki.users.allow[1]: …`). */
class Problems {
  readonly list: string[] = [];
  add(where: string, what: string): void {
    this.list.push(where === '' ? what : `${where}: ${what}`);
  }
}

function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** A list of strings; a single string counts as a list of one, null/absent as empty. */
function stringList(v: unknown, where: string, problems: Problems): string[] {
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  items.forEach((item, i) => {
    const text = scalarText(item);
    const at = Array.isArray(v) ? `${where}[${i}]` : where;
    if (text === null) problems.add(at, 'must be a string');
    else if (text.trim() === '') problems.add(at, 'must not be empty');
    else out.push(text.trim());
  });
  return out;
}

function section(v: unknown, where: string, keys: readonly string[], problems: Problems): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) {
    problems.add(where, `must be a mapping with ${keys.join(', ')}`);
    return {};
  }
  for (const key of Object.keys(v)) if (!keys.includes(key)) problems.add(where, `unknown key "${key}" (expected ${keys.join(', ')})`);
  return v;
}

function compileRegex(source: string, flags: string, where: string, problems: Problems, shown = source): RegExp | null {
  try {
    return new RegExp(source, flags);
  } catch {
    problems.add(where, `"${shown}" is not a valid regular expression`);
    return null;
  }
}

function names(v: unknown, where: string, problems: Problems): NameMatcher {
  const entries = stringList(v, where, problems);
  if (entries.length === 0) return EMPTY_NAMES;
  const literals = new Set<string>();
  const patterns: RegExp[] = [];
  entries.forEach((entry, i) => {
    const at = Array.isArray(v) ? `${where}[${i}]` : where;
    const close = entry.lastIndexOf('/');
    if (entry.startsWith('/') && close > 0) {
      const flags = entry.slice(close + 1);
      if (!/^i?$/.test(flags)) {
        problems.add(at, `only the flag "i" is supported after /regex/, not "${flags}"`);
        return;
      }
      const re = compileRegex(entry.slice(1, close), flags, at, problems, entry);
      if (re !== null) patterns.push(re);
    } else {
      literals.add(entry.toLowerCase());
    }
  });
  return { literals, patterns, size: literals.size + patterns.length };
}

function pathPatterns(v: unknown, where: string, caseInsensitive: boolean, problems: Problems): PathPattern[] {
  if (v === undefined || v === null) return [];
  const items = Array.isArray(v) ? v : [v];
  const out: PathPattern[] = [];
  items.forEach((item, i) => {
    const at = Array.isArray(v) ? `${where}[${i}]` : where;
    let source: string | null;
    let query = false;
    if (isRecord(item)) {
      const rule = section(item, at, ['regex', 'query'], problems);
      source = typeof rule.regex === 'string' ? rule.regex : null;
      if (source === null) problems.add(at, 'needs "regex" (a string)');
      if (rule.query !== undefined && typeof rule.query !== 'boolean') problems.add(`${at}.query`, 'must be true or false');
      query = rule.query === true;
    } else {
      source = typeof item === 'string' ? item : null;
      if (source === null) problems.add(at, 'must be a regular expression (a string) or {regex, query}');
    }
    if (source === null) return;
    if (source === '') {
      problems.add(at, 'must not be empty (it would match every path)');
      return;
    }
    const regex = compileRegex(source, caseInsensitive ? 'i' : '', at, problems);
    if (regex !== null) out.push({ regex, query });
  });
  return out;
}

function ipRanges(v: unknown, where: string, problems: Problems): IpRangeSet {
  const entries = stringList(v, where, problems);
  if (entries.length === 0) return EMPTY_RANGES;
  const compiled = compileIpRanges(entries);
  for (const p of compiled.problems) problems.add(where, p);
  return compiled.set;
}

/** Lower-case host, port and trailing dots removed; `*.` kept. Null when it is not a host name. */
export function normaliseHostPattern(raw: string): string | null {
  let h = raw.trim().toLowerCase();
  const wildcard = h.startsWith('*.');
  if (wildcard) h = h.slice(2);
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    if (close === -1 || wildcard) return null;
    const rest = h.slice(close + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    const inner = h.slice(1, close);
    return /^[0-9a-f:.]+$/.test(inner) ? `[${inner}]` : null;
  }
  h = h.replace(/:\d{1,5}$/, '').replace(/\.+$/, '');
  if (h.length === 0 || h.length > 253 || !HOST_NAME.test(h)) return null;
  return wildcard ? `*.${h}` : h;
}

function responseHeaders(v: unknown, where: string, readSecret: SecretReader, problems: Problems): Record<string, string> {
  const response = section(v, where, ['headers', 'basicauth', 'assertion'], problems);
  // No prototype: a header named `__proto__` must be a problem-free key, not a prototype swap.
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  if (response.headers !== undefined && response.headers !== null) {
    if (!isRecord(response.headers)) problems.add(`${where}.headers`, 'must be a mapping of header names to values');
    else {
      for (const [name, value] of Object.entries(response.headers)) {
        const at = `${where}.headers.${name}`;
        const lower = name.toLowerCase();
        const text = typeof value === 'boolean' ? String(value) : scalarText(value);
        if (!HEADER_NAME.test(name)) problems.add(at, 'is not a valid header name');
        else if (lower.startsWith('remote-')) problems.add(at, 'Remote-* headers carry the identity and are set by the gateway only');
        else if (RESERVED_HEADERS.has(lower)) problems.add(at, `${name} is set by the gateway${lower === 'authorization' ? ' (use response.basicauth)' : ''}`);
        else if (Object.prototype.hasOwnProperty.call(headers, lower)) problems.add(at, 'is given twice');
        else if (text === null || !HEADER_VALUE.test(text)) problems.add(at, 'must be a single line of printable text');
        else headers[lower] = text;
      }
    }
  }
  if (response.basicauth !== undefined && response.basicauth !== null) {
    const at = `${where}.basicauth`;
    const basic = section(response.basicauth, at, ['username', 'password_file'], problems);
    const username = scalarText(basic.username);
    const file = typeof basic.password_file === 'string' ? basic.password_file.trim() : '';
    if (username === null || username === '' || username.includes(':') || !HEADER_VALUE.test(username)) {
      problems.add(`${at}.username`, 'is required: printable text without ":"');
    }
    if (file === '') problems.add(`${at}.password_file`, 'is required: the path of a file holding the password');
    else {
      const content = readSecret(file);
      // The password itself never appears in a problem text.
      if (content === null) problems.add(`${at}.password_file`, `cannot read ${file}`);
      else {
        const password = content.replace(/\r?\n$/, '');
        if (password === '') problems.add(`${at}.password_file`, `${file} is empty`);
        else if (username !== null) headers.authorization = `Basic ${base64Utf8(`${username}:${password}`)}`;
      }
    }
  }
  return headers;
}

function base64Utf8(text: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function tokenPolicy(v: unknown, where: string, problems: Problems): TokenPolicy {
  if (v === undefined || v === null) return 'default';
  if (v === 'allow' || v === 'deny') return v;
  problems.add(where, 'must be allow or deny');
  return 'default';
}

/** A `require` block: at least one of its keys, each valid; null when absent or invalid (the problem is recorded). */
function requirement(v: unknown, where: string, problems: Problems): Requirement | null {
  if (v === undefined || v === null) return null;
  const doc = section(v, where, REQUIRE_KEYS, problems);
  if (isRecord(v) && Object.keys(v).length === 0) problems.add(where, `must name at least one of ${REQUIRE_KEYS.join(', ')}`);
  if (doc.second_factor !== undefined && typeof doc.second_factor !== 'boolean') problems.add(`${where}.second_factor`, 'must be true or false');
  let methods: LoginMethod[] | null = null;
  if (doc.login !== undefined && doc.login !== null) {
    methods = [];
    for (const [i, m] of stringList(doc.login, `${where}.login`, problems).entries()) {
      const at = Array.isArray(doc.login) ? `${where}.login[${i}]` : `${where}.login`;
      const method = m.toLowerCase() as LoginMethod;
      if (!LOGIN_METHODS.includes(method)) problems.add(at, `"${m}" is not a login method (${LOGIN_METHODS.join(', ')})`);
      else if (!methods.includes(method)) methods.push(method);
    }
    if (methods.length === 0) problems.add(`${where}.login`, 'must name at least one login method');
    if (doc.second_factor === true && methods.length > 0 && !methods.some((m) => m === 'totp' || m === 'passkey')) {
      problems.add(`${where}.login`, 'second_factor: true needs totp or passkey among the methods (no request could ever meet it)');
    }
  }
  let maxAgeMs: number | null = null;
  if (doc.max_age !== undefined && doc.max_age !== null) {
    const age = doc.max_age;
    if (typeof age !== 'number' || !Number.isInteger(age) || age < 0 || age > MAX_AGE_LIMIT) {
      problems.add(`${where}.max_age`, `must be a whole number of seconds from 0 to ${MAX_AGE_LIMIT}`);
    } else maxAgeMs = age * 1000;
  }
  return Object.freeze({ secondFactor: doc.second_factor === true, methods: methods === null ? null : Object.freeze(methods), maxAgeMs });
}

/** An application's `paths`: a list of entries, each with `match` and at least one condition. */
function pathRules(v: unknown, where: string, problems: Problems): PathRule[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) {
    problems.add(where, 'must be a list of entries (- match: "^/admin" …)');
    return [];
  }
  const out: PathRule[] = [];
  v.forEach((item: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isRecord(item)) {
      problems.add(at, 'must be a mapping with match and require, users, groups or methods');
      return;
    }
    const doc = section(item, at, PATH_RULE_KEYS, problems);
    if (doc.query !== undefined && typeof doc.query !== 'boolean') problems.add(`${at}.query`, 'must be true or false');
    let match: PathPattern | null = null;
    if (typeof doc.match !== 'string' || doc.match === '') problems.add(`${at}.match`, 'is required: a regular expression on the path');
    else {
      // Case-insensitive, like path.block: an entry that narrows access must also catch `/ADMIN`.
      const regex = compileRegex(doc.match, 'i', `${at}.match`, problems);
      if (regex !== null) match = { regex, query: doc.query === true };
    }
    let methods: Set<string> | null = null;
    if (doc.methods !== undefined && doc.methods !== null) {
      methods = new Set();
      for (const m of stringList(doc.methods, `${at}.methods`, problems)) {
        if (!METHOD_NAME.test(m)) problems.add(`${at}.methods`, `"${m}" is not an HTTP method`);
        else methods.add(m.toUpperCase());
      }
      if (methods.size === 0) problems.add(`${at}.methods`, 'must name at least one method (omit it for every method)');
    }
    const users = section(doc.users, `${at}.users`, ['allow', 'block'], problems);
    const rule: PathRule = Object.freeze({
      where: at,
      match: match ?? { regex: /$^/, query: false },
      methods,
      usersAllow: names(users.allow, `${at}.users.allow`, problems),
      usersBlock: names(users.block, `${at}.users.block`, problems),
      groups: new Set(stringList(doc.groups, `${at}.groups`, problems)),
      require: requirement(doc.require, `${at}.require`, problems),
    });
    if (rule.require === null && rule.usersAllow.size + rule.usersBlock.size + rule.groups.size === 0) {
      problems.add(at, 'narrows nothing: give it require, users or groups');
    }
    out.push(rule);
  });
  return out;
}

function compileApp(name: string | null, v: unknown, where: string, readSecret: SecretReader, problems: Problems): { app: AppRules; domains: string[] } {
  const keys = name === null ? [...APP_KEYS].filter((k) => k !== 'domain') : [...APP_KEYS];
  const doc = section(v, where, keys, problems);
  const users = section(doc.users, `${where}.users`, ['allow', 'block'], problems);
  const oauth = section(doc.oauth, `${where}.oauth`, ['whitelist', 'groups'], problems);
  const path = section(doc.path, `${where}.path`, ['allow', 'block'], problems);
  const ip = section(doc.ip, `${where}.ip`, ['allow', 'block', 'bypass'], problems);
  // `require_second_factor` (a TOTP code or a passkey login); `require_totp` is its older name, kept working.
  for (const key of ['require_second_factor', 'require_totp'] as const) {
    if (doc[key] !== undefined && doc[key] !== null && typeof doc[key] !== 'boolean') problems.add(`${where}.${key}`, 'must be true or false');
  }
  const domains: string[] = [];
  stringList(doc.domain, `${where}.domain`, problems).forEach((raw) => {
    const host = normaliseHostPattern(raw);
    if (host === null) problems.add(`${where}.domain`, `"${raw}" is not a host name or *.suffix`);
    else domains.push(host);
  });
  if (Array.isArray(doc.domain) && doc.domain.length === 0) {
    problems.add(`${where}.domain`, 'must name at least one host (omit it to match the first host label)');
  }
  const headers = Object.freeze(responseHeaders(doc.response, `${where}.response`, readSecret, problems));
  const assertion = isRecord(doc.response) ? doc.response.assertion : undefined;
  if (assertion !== undefined && assertion !== null && typeof assertion !== 'boolean') problems.add(`${where}.response.assertion`, 'must be true or false');
  const app: AppRules = Object.freeze({
    name,
    usersAllow: names(users.allow, `${where}.users.allow`, problems),
    usersBlock: names(users.block, `${where}.users.block`, problems),
    oauthWhitelist: names(oauth.whitelist, `${where}.oauth.whitelist`, problems),
    groups: new Set(stringList(oauth.groups, `${where}.oauth.groups`, problems)),
    // Public paths match case-sensitively (matching less); blocked paths case-insensitively
    // (matching more), so a case-insensitive upstream cannot be reached past a block by `/ADMIN`.
    pathAllow: pathPatterns(path.allow, `${where}.path.allow`, false, problems),
    pathBlock: pathPatterns(path.block, `${where}.path.block`, true, problems),
    ipAllow: ipRanges(ip.allow, `${where}.ip.allow`, problems),
    ipBlock: ipRanges(ip.block, `${where}.ip.block`, problems),
    ipBypass: ipRanges(ip.bypass, `${where}.ip.bypass`, problems),
    requireTotp: doc.require_second_factor === true || doc.require_totp === true,
    paths: pathRules(doc.paths, `${where}.paths`, problems),
    tokens: tokenPolicy(doc.tokens, `${where}.tokens`, problems),
    assertion: assertion === true,
    ...decisionsFor(name, headers, assertion === true),
  });
  return { app, domains };
}

/**
 * Validates and compiles a rules document. Every problem is reported, each with its place in the
 * document; rules with any problem are refused as a whole (half a rule set could let too much in).
 */
export function compileAccessRules(doc: unknown, readSecret: SecretReader): Result<AccessRules, string[]> {
  const problems = new Problems();
  if (doc === null || doc === undefined) return err(['the rules file is empty (write default_policy: allow_authenticated for no rules)']);
  const top = section(doc, '', [...TOP_KEYS], problems);
  const policyRaw = top.default_policy ?? 'allow_authenticated';
  if (policyRaw !== 'allow_authenticated' && policyRaw !== 'deny') problems.add('default_policy', 'must be allow_authenticated or deny');
  const defaultPolicy: DefaultPolicy = policyRaw === 'allow_authenticated' ? 'allow_authenticated' : 'deny';

  const byHost = new Map<string, AppRules>();
  const suffixes: { suffix: string; app: AppRules }[] = [];
  const byLabel = new Map<string, AppRules>();
  const apps: AppRules[] = [];
  if (top.apps !== undefined && top.apps !== null && !isRecord(top.apps)) problems.add('apps', 'must be a mapping of application names to rules');
  const appDocs = isRecord(top.apps) ? top.apps : {};
  for (const [name, appDoc] of Object.entries(appDocs)) {
    const where = `apps.${name}`;
    if (!APP_NAME.test(name)) problems.add(where, 'an application name uses letters, digits, "-" and "_" only (at most 63)');
    const { app, domains } = compileApp(name, appDoc, where, readSecret, problems);
    apps.push(app);
    if (!isRecord(appDoc) || appDoc.domain === undefined || appDoc.domain === null) {
      const label = name.toLowerCase();
      if (byLabel.has(label)) problems.add(where, `another application already matches the host label "${label}"`);
      else byLabel.set(label, app);
    }
    for (const host of domains) {
      if (host.startsWith('*.')) {
        const suffix = host.slice(1);
        if (suffixes.some((s) => s.suffix === suffix)) problems.add(`${where}.domain`, `"${host}" is claimed by another application`);
        else suffixes.push({ suffix, app });
      } else if (byHost.has(host)) problems.add(`${where}.domain`, `"${host}" is claimed by another application`);
      else byHost.set(host, app);
    }
  }

  let fallback: AppRules;
  if (top.default !== undefined && top.default !== null) {
    if (defaultPolicy === 'deny') problems.add('default', 'a default section contradicts default_policy: deny (hosts without an application are refused)');
    fallback = compileApp(null, top.default, 'default', readSecret, problems).app;
  } else {
    fallback = defaultPolicy === 'deny' ? DENY_ALL : emptyApp(null);
  }
  if (problems.list.length > 0) return err(problems.list);
  suffixes.sort((a, b) => b.suffix.length - a.suffix.length);
  return ok({ defaultPolicy, apps, byHost, bySuffix: suffixes, byLabel, fallback });
}

/** The fallback of `default_policy: deny`; evaluation recognises it by identity and refuses everything. */
export const DENY_ALL: AppRules = emptyApp(null);
