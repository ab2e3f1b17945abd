import { compileIpRanges, inRanges, parseIpInto, type IpRangeSet } from '../ip-address';
import { err, ok, type Result } from '../result';

/**
 * Authelia's `access_control` section, read from the plain document its YAML parses into, and a
 * reference evaluator of Authelia's documented semantics (rules in order, the first whose every
 * criterion matches decides, else `default_policy`). The importer translates these rules into a
 * Portcullis rules file (authelia-translate.ts); `import --check` compares both decisions.
 */

export type AutheliaPolicy = 'bypass' | 'one_factor' | 'two_factor' | 'deny';
export const AUTHELIA_POLICIES: readonly AutheliaPolicy[] = ['bypass', 'one_factor', 'two_factor', 'deny'];

/** How strict a policy is: a higher level never lets in more. */
export function policyLevel(p: AutheliaPolicy): number {
  return AUTHELIA_POLICIES.indexOf(p);
}

export type QueryOperator = 'equal' | 'not equal' | 'present' | 'absent' | 'pattern' | 'not pattern';
const QUERY_OPERATORS: readonly QueryOperator[] = ['equal', 'not equal', 'present', 'absent', 'pattern', 'not pattern'];

export interface QueryCondition {
  readonly key: string;
  readonly operator: QueryOperator;
  readonly value: string | null;
  readonly regex: RegExp | null;
}

/** A regular expression as Authelia (Go's RE2) wrote it, and its JavaScript equivalent. */
export interface ImportedRegex {
  readonly source: string;
  readonly regex: RegExp;
  /** Named groups `User` / `Group` (domain_regex placeholders for the person). */
  readonly placeholders: boolean;
}

export interface AutheliaRule {
  /** 1-based position in `rules`. */
  readonly number: number;
  /** Where it stands in its file (`line 12`), for the report. */
  readonly line: number | null;
  /** Lower-cased; exact, `*.suffix`, or with `{user}` / `{group}` placeholders. */
  readonly domains: readonly string[];
  readonly domainRegex: readonly ImportedRegex[];
  readonly policy: AutheliaPolicy;
  /** OR of ANDs of `user:name` / `group:name` (or any other subject kind, kept as written); null: everyone. */
  readonly subject: readonly (readonly string[])[] | null;
  readonly resources: readonly ImportedRegex[] | null;
  /** Upper-case; null: every method. */
  readonly methods: readonly string[] | null;
  /** Addresses and CIDRs, named networks resolved; null: everywhere. */
  readonly networks: readonly string[] | null;
  readonly networkSet: IpRangeSet | null;
  /** OR of ANDs. */
  readonly query: readonly (readonly QueryCondition[])[] | null;
}

export interface AutheliaAccessControl {
  readonly defaultPolicy: AutheliaPolicy;
  readonly rules: readonly AutheliaRule[];
}

/** Where a value sits in the document, for messages: `line 12: access_control.rules[3].policy`. */
export type PlaceOf = (path: readonly (string | number)[]) => string;

const TOP_KEYS = ['default_policy', 'networks', 'rules'];
const RULE_KEYS = ['domain', 'domain_regex', 'policy', 'subject', 'resources', 'methods', 'networks', 'query'];
const NETWORK_KEYS = ['name', 'networks'];
const QUERY_KEYS = ['key', 'value', 'operator'];
const METHODS = [
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'TRACE',
  'CONNECT',
  'OPTIONS',
  'COPY',
  'LOCK',
  'MKCOL',
  'MOVE',
  'PROPFIND',
  'PROPPATCH',
  'UNLOCK',
];

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Problems {
  readonly list: string[] = [];
  constructor(private readonly place: PlaceOf) {}
  add(path: readonly (string | number)[], message: string): void {
    this.list.push(`${this.place(path)}: ${message}`);
  }
  keys(v: Record<string, unknown>, path: readonly (string | number)[], known: readonly string[]): void {
    for (const k of Object.keys(v)) if (!known.includes(k)) this.add([...path, k], `unknown key "${k}" (known: ${known.join(', ')})`);
  }
}

/** A string or a list of strings, as Authelia accepts both. */
function stringList(v: unknown, path: readonly (string | number)[], problems: Problems): string[] | null {
  if (v === undefined || v === null) return null;
  const list = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  list.forEach((item, i) => {
    if (typeof item === 'string' && item.trim() !== '') out.push(item.trim());
    else problems.add(Array.isArray(v) ? [...path, i] : path, 'must be a non-empty string');
  });
  return out;
}

/**
 * Go regular expressions (RE2) read as JavaScript: `(?P<name>` is `(?<name>`, and a leading `(?i)`
 * becomes the `i` flag. Anything else JavaScript cannot compile is reported.
 */
export function importRegex(source: string): ImportedRegex | string {
  // RE2 syntax JavaScript would read differently (not refuse): never guess what it meant.
  const re2 = /\[\[:|\\[zAQE]|\(\?[a-zA-Z]*[smU]|\\[pP][A-Za-z{]|\\x\{/.exec(source.replace(/^\(\?i\)/, ''));
  if (re2 !== null) return `the regular expression "${source}" uses RE2 syntax ("${re2[0]}") that JavaScript reads differently; write it without`;
  let text = source.replace(/\(\?P</g, '(?<');
  let flags = '';
  if (text.startsWith('(?i)')) {
    text = text.slice(4);
    flags = 'i';
  }
  try {
    return { source, regex: new RegExp(text, flags), placeholders: /\(\?<(User|Group)>/.test(text) };
  } catch (e) {
    return `the regular expression "${source}" does not compile (${e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : 'invalid'})`;
  }
}

function regexList(v: unknown, path: readonly (string | number)[], problems: Problems): ImportedRegex[] | null {
  const sources = stringList(v, path, problems);
  if (sources === null || sources.length === 0) return null;
  const out: ImportedRegex[] = [];
  sources.forEach((s, i) => {
    const r = importRegex(s);
    if (typeof r === 'string') problems.add(Array.isArray(v) ? [...path, i] : path, r);
    else out.push(r);
  });
  return out;
}

function readPolicy(v: unknown, path: readonly (string | number)[], problems: Problems): AutheliaPolicy {
  if (typeof v === 'string' && (AUTHELIA_POLICIES as readonly string[]).includes(v)) return v as AutheliaPolicy;
  problems.add(path, `unknown policy ${JSON.stringify(v ?? null)} (one of ${AUTHELIA_POLICIES.join(', ')})`);
  return 'deny';
}

function readNetworks(v: unknown, problems: Problems): Map<string, string[]> {
  const named = new Map<string, string[]>();
  if (v === undefined || v === null) return named;
  if (!Array.isArray(v)) {
    problems.add(['networks'], 'must be a list of {name, networks}');
    return named;
  }
  v.forEach((item: unknown, i) => {
    if (!isRecord(item)) {
      problems.add(['networks', i], 'must be a mapping with name and networks');
      return;
    }
    problems.keys(item, ['networks', i], NETWORK_KEYS);
    const cidrs = stringList(item.networks, ['networks', i, 'networks'], problems) ?? [];
    for (const p of compileIpRanges(cidrs).problems) problems.add(['networks', i, 'networks'], p);
    if (typeof item.name !== 'string' || item.name === '') problems.add(['networks', i, 'name'], 'is required');
    else named.set(item.name, cidrs);
  });
  return named;
}

function readSubject(v: unknown, path: readonly (string | number)[], problems: Problems): string[][] | null {
  if (v === undefined || v === null) return null;
  const list = Array.isArray(v) ? v : [v];
  const out: string[][] = [];
  list.forEach((item: unknown, i) => {
    const at = Array.isArray(v) ? [...path, i] : path;
    const terms = stringList(item, at, problems) ?? [];
    for (const t of terms)
      if (!/^(user|group|oauth2:client):.+$/.test(t)) problems.add(at, `"${t}" is not a subject (user:NAME, group:NAME or oauth2:client:ID)`);
    if (terms.length > 0) out.push(terms);
  });
  return out.length === 0 ? null : out;
}

function readQuery(v: unknown, path: readonly (string | number)[], problems: Problems): QueryCondition[][] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v)) {
    problems.add(path, 'must be a list of lists of {key, value, operator}');
    return null;
  }
  if (v.length === 0) return null;
  return v.map((and: unknown, i) => {
    const items = Array.isArray(and) ? and : [and];
    return items.flatMap((c: unknown, j): QueryCondition[] => {
      const at = Array.isArray(and) ? [...path, i, j] : [...path, i];
      if (!isRecord(c)) {
        problems.add(at, 'must be a mapping with key, value and operator');
        return [];
      }
      problems.keys(c, at, QUERY_KEYS);
      const value = c.value === undefined || c.value === null ? null : String(c.value);
      const operator = (c.operator ?? (value === null ? 'present' : 'equal')) as QueryOperator;
      if (!QUERY_OPERATORS.includes(operator))
        problems.add([...at, 'operator'], `unknown operator ${JSON.stringify(c.operator)} (one of ${QUERY_OPERATORS.join(', ')})`);
      if (typeof c.key !== 'string' || c.key === '') problems.add([...at, 'key'], 'is required');
      let regex: RegExp | null = null;
      if ((operator === 'pattern' || operator === 'not pattern') && value !== null) {
        const r = importRegex(value);
        if (typeof r === 'string') problems.add([...at, 'value'], r);
        else regex = r.regex;
      }
      return [{ key: String(c.key), operator, value, regex }];
    });
  });
}

function readRule(
  item: unknown,
  i: number,
  named: ReadonlyMap<string, string[]>,
  problems: Problems,
  lineOf: (p: readonly (string | number)[]) => number | null,
): AutheliaRule | null {
  const at = ['rules', i];
  if (!isRecord(item)) {
    problems.add(at, 'must be a mapping');
    return null;
  }
  problems.keys(item, at, RULE_KEYS);
  const domains = (stringList(item.domain, [...at, 'domain'], problems) ?? []).map((d) => d.toLowerCase().replace(/\.$/, ''));
  const domainRegex = regexList(item.domain_regex, [...at, 'domain_regex'], problems) ?? [];
  if (domains.length === 0 && domainRegex.length === 0) problems.add(at, 'needs domain or domain_regex');
  const policy = readPolicy(item.policy, [...at, 'policy'], problems);
  const subject = readSubject(item.subject, [...at, 'subject'], problems);
  if (policy === 'bypass' && subject !== null) problems.add([...at, 'subject'], 'a bypass rule cannot have a subject (Authelia refuses it too)');
  const methodList = stringList(item.methods, [...at, 'methods'], problems)?.map((m) => m.toUpperCase()) ?? null;
  // An empty list is no condition, as if it were left out.
  const methods = methodList === null || methodList.length === 0 ? null : methodList;
  for (const m of methods ?? []) if (!METHODS.includes(m)) problems.add([...at, 'methods'], `"${m}" is not a method Authelia knows`);
  let networks: string[] | null = null;
  let networkSet: IpRangeSet | null = null;
  const names = stringList(item.networks, [...at, 'networks'], problems);
  if (names !== null && names.length > 0) {
    networks = names.flatMap((n) => named.get(n) ?? [n]);
    const compiled = compileIpRanges(networks);
    for (const p of compiled.problems) problems.add([...at, 'networks'], `${p} nor a network named in access_control.networks`);
    networkSet = compiled.set;
  }
  return {
    number: i + 1,
    line: lineOf(at),
    domains,
    domainRegex,
    policy,
    subject,
    resources: regexList(item.resources, [...at, 'resources'], problems),
    methods,
    networks,
    networkSet,
    query: readQuery(item.query, [...at, 'query'], problems),
  };
}

/**
 * Reads `access_control` (the value under that key). `place` names a path under it for messages,
 * `lineOf` gives a path's line. Every problem is returned: unknown keys, an unknown policy, a
 * regular expression that does not compile, an unknown network.
 */
export function parseAutheliaAccessControl(
  doc: unknown,
  place: PlaceOf,
  lineOf: (path: readonly (string | number)[]) => number | null,
): Result<AutheliaAccessControl, string[]> {
  const problems = new Problems(place);
  if (doc === undefined || doc === null) return ok({ defaultPolicy: 'deny', rules: [] });
  if (!isRecord(doc)) return err([`${place([])}: must be a mapping`]);
  problems.keys(doc, [], TOP_KEYS);
  const defaultPolicy = doc.default_policy === undefined ? 'deny' : readPolicy(doc.default_policy, ['default_policy'], problems);
  const named = readNetworks(doc.networks, problems);
  const rules: AutheliaRule[] = [];
  if (doc.rules !== undefined && doc.rules !== null) {
    if (!Array.isArray(doc.rules)) problems.add(['rules'], 'must be a list');
    else
      doc.rules.forEach((item: unknown, i) => {
        const rule = readRule(item, i, named, problems, lineOf);
        if (rule !== null) rules.push(rule);
      });
  }
  return problems.list.length > 0 ? err(problems.list) : ok({ defaultPolicy, rules });
}

/** One request as `--check` describes it. */
export interface CheckRequest {
  readonly host: string;
  /** The path with its query (`/a?b=c`), as the proxy forwards it. */
  readonly uri: string;
  readonly method: string;
  /** Null: nobody logged in. */
  readonly user: { readonly username: string; readonly groups: readonly string[]; readonly factors: 1 | 2 } | null;
  readonly ip: string;
}

/** What Authelia answers: let in, ask to log in, ask for a second factor, or refuse. */
export type AutheliaOutcome = 'allow' | 'login' | 'second_factor' | 'deny';

function domainMatches(rule: AutheliaRule, host: string, user: CheckRequest['user']): boolean {
  for (const d of rule.domains) {
    const candidates = d.includes('{user}') || d.includes('{group}') ? expand(d, user) : [d];
    for (const c of candidates) {
      if (c.startsWith('*.') ? host.endsWith(c.slice(1)) : host === c) return true;
    }
  }
  for (const r of rule.domainRegex) {
    const m = r.regex.exec(host);
    if (m === null) continue;
    const u = m.groups?.User;
    const g = m.groups?.Group;
    if (u !== undefined && (user === null || u.toLowerCase() !== user.username.toLowerCase())) continue;
    if (g !== undefined && (user === null || !user.groups.some((x) => x.toLowerCase() === g.toLowerCase()))) continue;
    return true;
  }
  return false;
}

function expand(domain: string, user: CheckRequest['user']): string[] {
  if (user === null) return [];
  const withUser = domain.split('{user}').join(user.username.toLowerCase());
  return withUser.includes('{group}') ? user.groups.map((g) => withUser.split('{group}').join(g.toLowerCase())) : [withUser];
}

function queryMatches(query: readonly (readonly QueryCondition[])[], uri: string): boolean {
  const q = uri.indexOf('?');
  const params = new URLSearchParams(q === -1 ? '' : uri.slice(q + 1));
  return query.some((and) =>
    and.every((c) => {
      const values = params.getAll(c.key);
      switch (c.operator) {
        case 'present':
          return values.length > 0;
        case 'absent':
          return values.length === 0;
        case 'equal':
          return values.includes(c.value ?? '');
        case 'not equal':
          return values.length > 0 && !values.includes(c.value ?? '');
        case 'pattern':
          return values.some((v) => c.regex?.test(v) === true);
        case 'not pattern':
          return values.length > 0 && !values.some((v) => c.regex?.test(v) === true);
      }
    }),
  );
}

function subjectMatches(subject: readonly (readonly string[])[], user: NonNullable<CheckRequest['user']>): boolean {
  return subject.some((and) =>
    and.every((term) => {
      if (term.startsWith('user:')) return term.slice(5) === user.username;
      if (term.startsWith('group:')) return user.groups.includes(term.slice(6));
      return false;
    }),
  );
}

/** Every criterion but the subject (an anonymous request matches a subject rule and must log in). */
function objectMatches(rule: AutheliaRule, req: CheckRequest, addr: Uint32Array, family: 0 | 4 | 6): boolean {
  if (!domainMatches(rule, req.host.toLowerCase(), req.user)) return false;
  if (rule.resources !== null && !rule.resources.some((r) => r.regex.test(req.uri))) return false;
  if (rule.query !== null && !queryMatches(rule.query, req.uri)) return false;
  if (rule.methods !== null && !rule.methods.includes(req.method.toUpperCase())) return false;
  if (rule.networkSet !== null && (family === 0 || !inRanges(rule.networkSet, family, addr))) return false;
  return true;
}

function outcomeOf(policy: AutheliaPolicy, user: CheckRequest['user'], hasSubject: boolean): AutheliaOutcome {
  if (policy === 'bypass') return 'allow';
  if (user === null) return policy === 'deny' && !hasSubject ? 'deny' : 'login';
  if (policy === 'deny') return 'deny';
  if (policy === 'two_factor' && user.factors < 2) return 'second_factor';
  return 'allow';
}

/** Authelia's decision for one request, with the rule that made it (null: `default_policy`). */
export function autheliaDecide(ac: AutheliaAccessControl, req: CheckRequest): { outcome: AutheliaOutcome; rule: number | null } {
  const addr = new Uint32Array(4);
  const family = parseIpInto(req.ip, addr);
  for (const rule of ac.rules) {
    if (!objectMatches(rule, req, addr, family)) continue;
    if (rule.subject !== null && req.user !== null && !subjectMatches(rule.subject, req.user)) continue;
    return { outcome: outcomeOf(rule.policy, req.user, rule.subject !== null), rule: rule.number };
  }
  return { outcome: outcomeOf(ac.defaultPolicy, req.user, false), rule: null };
}
