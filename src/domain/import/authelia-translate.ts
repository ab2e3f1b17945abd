import { policyLevel, type AutheliaAccessControl, type AutheliaPolicy, type AutheliaRule } from './authelia-access';

/**
 * Authelia's `access_control` as a Portcullis rules document (what the rules file's YAML holds).
 * The translation never widens access: where the rules file cannot say what a rule says, the rule
 * becomes a stricter one and the report says so, line by line.
 *
 * Shape of the result: one application per domain the rules name (exact hosts and `*.suffix`),
 * each holding, in the rules' order, one `paths` entry per rule (first match wins, like Authelia);
 * the last unconditional rule of a domain (or `default_policy`) becomes the application's own
 * rule. Bypass rules become `path.allow` (by resources) or `ip.bypass` (by networks).
 */

export interface TranslationLine {
  readonly rule: number | null;
  readonly line: number | null;
  /** Where it went: `apps.wiki.paths[2]`, `default_policy`… */
  readonly target: string;
  readonly text: string;
  /** Null: exact. Else why Portcullis is stricter here. */
  readonly stricter: string | null;
}

export interface Translation {
  readonly document: Record<string, unknown>;
  readonly lines: readonly TranslationLine[];
}

/** Hosts an application stands for: one exact host, or the subdomains of a suffix (`*.example.com`). */
type HostSet = { kind: 'exact'; host: string } | { kind: 'wildcard'; suffix: string } | { kind: 'rest' };

type Applies = 'yes' | 'no' | 'maybe';

const NEVER = '/(?!)/';
const EVERYONE = '/^/';

function hasPlaceholder(d: string): boolean {
  return d.includes('{user}') || d.includes('{group}');
}

/** A `domain_regex` that names exactly one host (`^app\.example\.com$`), else null. */
export function literalHost(source: string): string | null {
  const m = /^\^((?:[a-z0-9-]|\\\.)+)\$$/i.exec(source);
  return m === null ? null : m[1].replace(/\\\./g, '.').toLowerCase();
}

/** The literal end of a host pattern (`.home.example.org` of `{user}.home.example.org`, `.example.net` of `^.*\.example\.net$`). */
function literalTail(pattern: string, regex: boolean): string {
  if (!regex) return pattern.slice(pattern.lastIndexOf('}') + 1);
  const m = /((?:\\\.|[a-z0-9-])+)\$$/i.exec(pattern);
  return m === null ? '' : m[1].replace(/\\\./g, '.').toLowerCase();
}

/** Whether a host under `*.suffix` could end with `tail`. */
function tailFits(tail: string, suffix: string): boolean {
  return tail === '' || tail.endsWith(`.${suffix}`) || `.${suffix}`.endsWith(tail);
}

/** Whether a host fits a domain with `{user}` / `{group}` placeholders for some person. */
function placeholderFits(domain: string, host: string): boolean {
  const source = domain
    .split(/\{user\}|\{group\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.+');
  return new RegExp(`^${source}$`).test(host);
}

function appliesTo(rule: AutheliaRule, hosts: HostSet): Applies {
  let result: Applies = 'no';
  for (const d of rule.domains) {
    if (hasPlaceholder(d)) {
      const fits = hosts.kind === 'exact' ? placeholderFits(d, hosts.host) : hosts.kind === 'wildcard' ? tailFits(literalTail(d, false), hosts.suffix) : true;
      if (fits) result = 'maybe';
    } else if (hosts.kind === 'exact' && (d === hosts.host || (d.startsWith('*.') && hosts.host.endsWith(d.slice(1))))) return 'yes';
    else if (hosts.kind === 'wildcard' && d.startsWith('*.') && (`.${hosts.suffix}` === d.slice(1) || hosts.suffix.endsWith(d.slice(1)))) return 'yes';
  }
  for (const r of rule.domainRegex) {
    const literal = literalHost(r.source);
    if (literal !== null) {
      if (hosts.kind === 'exact' && hosts.host === literal) return 'yes';
    } else if (hosts.kind === 'exact') {
      // A placeholder group only narrows the match to some people: no match at all is still "no".
      if (r.regex.test(hosts.host)) {
        if (!r.placeholders) return 'yes';
        result = 'maybe';
      }
    } else if (hosts.kind === 'rest' || tailFits(literalTail(r.source, true), hosts.suffix)) result = 'maybe';
  }
  return result;
}

function hostSets(ac: AutheliaAccessControl): HostSet[] {
  const exact = new Set<string>();
  const wildcard = new Set<string>();
  for (const rule of ac.rules) {
    for (const d of rule.domains) {
      if (hasPlaceholder(d)) continue;
      if (d.startsWith('*.')) wildcard.add(d.slice(2));
      else exact.add(d);
    }
    for (const r of rule.domainRegex) {
      const literal = literalHost(r.source);
      if (literal !== null) exact.add(literal);
    }
  }
  return [...[...exact].map((host): HostSet => ({ kind: 'exact', host })), ...[...wildcard].map((suffix): HostSet => ({ kind: 'wildcard', suffix }))];
}

function appName(hosts: HostSet, taken: Set<string>): string {
  const base = (hosts.kind === 'exact' ? hosts.host : hosts.kind === 'wildcard' ? `any-${hosts.suffix}` : 'default')
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 56);
  let name = base === '' ? 'app' : base;
  for (let i = 2; taken.has(name); i += 1) name = `${base}-${i}`;
  taken.add(name);
  return name;
}

/** The rule's criteria besides the domain, as the report prints them. */
function describe(rule: AutheliaRule): string {
  const parts: string[] = [];
  if (rule.resources !== null) parts.push(`resources ${rule.resources.map((r) => r.source).join(' | ')}`);
  if (rule.methods !== null) parts.push(`methods ${rule.methods.join(',')}`);
  if (rule.subject !== null) parts.push(`subject ${rule.subject.map((a) => a.join(' & ')).join(' | ')}`);
  if (rule.networks !== null) parts.push(`networks ${rule.networks.join(',')}`);
  if (rule.query !== null) parts.push('query conditions');
  return `${parts.length === 0 ? 'every request' : parts.join(', ')} → ${rule.policy}`;
}

function isUnconditional(rule: AutheliaRule): boolean {
  return rule.resources === null && rule.methods === null && rule.subject === null && rule.networks === null && rule.query === null;
}

/** Users and groups an entry can hold exactly, or why not (null subject: everyone). */
function subjectOf(subject: readonly (readonly string[])[]): { users: string[]; groups: string[]; inexact: string | null } | string {
  if (subject.some((and) => and.some((t) => t.startsWith('oauth2:')))) return 'an oauth2:client subject has no counterpart';
  const users = new Set<string>();
  const groups = new Set<string>();
  if (subject.length === 1 && subject[0].length > 1) {
    const u = subject[0].filter((t) => t.startsWith('user:'));
    const g = subject[0].filter((t) => t.startsWith('group:'));
    if (u.length > 1 || g.length > 1) return 'a person in several groups at once (an AND of groups) has no counterpart';
    return { users: u.map((t) => t.slice(5)), groups: g.map((t) => t.slice(6)), inexact: null };
  }
  if (subject.some((and) => and.length > 1)) return 'an OR of ANDs of subjects has no counterpart';
  for (const [t] of subject) (t.startsWith('user:') ? users : groups).add(t.replace(/^(user|group):/, ''));
  const inexact = users.size > 0 && groups.size > 0 ? 'only people who are both a listed user and in a listed group pass (Authelia: either)' : null;
  return { users: [...users], groups: [...groups], inexact };
}

/** True when a regex has `|` outside every group and class (`^/a$|^/b$`). */
function topLevelAlternation(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (c === '\\') i += 1;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth += 1;
    else if (c === ')') depth -= 1;
    else if (c === '|' && depth === 0) return true;
  }
  return false;
}

/** The source with each end anchor `$` (outside classes) made to hold before the final lone `?`. */
function endsBeforeQuestionMark(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i += 1;
    } else if (inClass) {
      inClass = c !== ']';
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else out += c === '$' ? '(?=\\?$)' : c;
  }
  return out;
}

/** A source whose only end anchor is its last `$`, so "path" ending there is "path?" ending before `?$`. */
function endsAnchored(source: string): boolean {
  return source.endsWith('$') && !source.endsWith('\\$') && !topLevelAlternation(source);
}

/**
 * Authelia matches `resources` against the path, plus `?query` only when there is a query; Portcullis
 * (with `query: true`) always against `path?query`. This regex, on Portcullis's text, matches what
 * each source matches on Authelia's: with a query, the source as it is; without, a source that ends
 * with `$` rewritten to end at the lone `?`. Any other source cannot be told apart without a query:
 * `loose` tries it on "path?" (catching at least what Authelia did: for entries), else it is left
 * out there (catching at most: for public paths); `withoutQuery` is false then.
 */
export function onPathAndQuery(sources: readonly string[], loose = false): { regex: string; withoutQuery: boolean } {
  const parts: string[] = [];
  let withoutQuery = true;
  for (const source of sources) {
    parts.push(`^(?=[^?]*\\?.)[\\s\\S]*?(?:${source})`);
    if (endsAnchored(source)) parts.push(`^(?=[^?]*\\?$)(?:${source.slice(0, -1)})\\?$`);
    else {
      withoutQuery = false;
      if (loose) parts.push(`^(?=[^?]*\\?$)[\\s\\S]*?(?:${endsBeforeQuestionMark(source)})`);
    }
  }
  return { regex: parts.join('|'), withoutQuery };
}

/** True when a regular expression tells letters' case apart (Portcullis compares paths entries without case). */
function caseMatters(sources: readonly string[]): boolean {
  return sources.some((s) =>
    /[A-Za-z]/.test(
      s
        .replace(/\\[a-zA-Z]/g, '')
        .replace(/\(\?i\)/g, '')
        .replace(/\(\?<[A-Za-z]+>/g, ''),
    ),
  );
}

function entryBody(policy: AutheliaPolicy, users: string[], groups: string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (policy === 'deny') return { users: { block: [EVERYONE] } };
  if (users.length > 0) body.users = { allow: users };
  if (groups.length > 0) body.groups = groups;
  if (policy === 'two_factor') body.require = { second_factor: true };
  else if (users.length === 0 && groups.length === 0) body.users = { block: [NEVER] };
  return body;
}

function maxPolicy(...policies: AutheliaPolicy[]): AutheliaPolicy {
  return policies.reduce((a, b) => (policyLevel(b) > policyLevel(a) ? b : a));
}

interface AppState {
  readonly name: string | null;
  readonly where: string;
  readonly app: Record<string, unknown>;
  readonly entries: Record<string, unknown>[];
  readonly pathAllow: Record<string, unknown>[];
  readonly ipBypass: string[];
  readonly ipBlock: string[];
  readonly lines: TranslationLine[];
  /** Public paths and bypass addresses: their report line, and how many entries stood before them. */
  readonly openings: { line: number; entries: number; sources: readonly string[] | null }[];
  /** Each entry's resources (null: every path), to tell which public paths it can take. */
  readonly entrySources: (readonly string[] | null)[];
}

/** The literal start of an anchored regex (`/admin` of `^\/admin([/?].*)?$`), lower-cased; null when it has none. */
function literalPrefix(source: string): string | null {
  const m = /^\^((?:\\[/.?-]|[A-Za-z0-9/_-])*)/.exec(source);
  return m === null ? null : m[1].replace(/\\(.)/g, '$1').toLowerCase();
}

/** False only when two resource lists surely match no common path (distinct literal starts). */
function mayOverlap(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return true;
  return a.some((x) =>
    b.some((y) => {
      const p = literalPrefix(x);
      const q = literalPrefix(y);
      return p === null || q === null || p.startsWith(q) || q.startsWith(p);
    }),
  );
}

function say(s: AppState, rule: AutheliaRule | null, target: string, text: string, stricter: string | null = null): void {
  s.lines.push({ rule: rule?.number ?? null, line: rule?.line ?? null, target: `${s.where}${target}`, text, stricter });
}

function sameList(a: readonly string[] | null, b: readonly string[] | null): boolean {
  return a !== null && b !== null && a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * True when a person outside rule `i`'s subject, on the requests rule `i` matches, ends at deny in
 * Authelia: every later rule that may match them is deny, up to one that surely matches (same
 * resources or none, no other condition). Then refusing them in the entry is exact.
 */
function fallsToDeny(used: readonly { rule: AutheliaRule; applies: string }[], i: number, fallback: AutheliaPolicy): boolean {
  const rule = used[i].rule;
  const sources = rule.resources?.map((r) => r.source) ?? null;
  for (const { rule: next, applies } of used.slice(i + 1)) {
    if (rule.methods !== null && next.methods !== null && !next.methods.some((m) => rule.methods?.includes(m))) continue;
    if (next.policy !== 'deny') return false;
    const covers = applies === 'yes' && next.subject === null && next.networks === null && next.query === null;
    const methodsCover = next.methods === null || (rule.methods !== null && rule.methods.every((m) => next.methods?.includes(m)));
    if (
      covers &&
      methodsCover &&
      (next.resources === null ||
        sameList(
          sources,
          next.resources.map((r) => r.source),
        ))
    )
      return true;
  }
  return fallback === 'deny';
}

/** One rule that reaches this application, as what it becomes there. */
function translateRule(
  s: AppState,
  rule: AutheliaRule,
  maybe: boolean,
  later: { all: AutheliaPolicy; otherCase: AutheliaPolicy },
  earlier: number,
  toDeny: boolean,
): void {
  const onlyResources = rule.resources !== null && rule.methods === null && rule.subject === null && rule.networks === null && rule.query === null;
  const onlyNetworks = rule.networks !== null && rule.resources === null && rule.methods === null && rule.subject === null && rule.query === null;
  if (!maybe && rule.policy === 'bypass' && onlyResources) {
    const allow = onPathAndQuery((rule.resources ?? []).map((r) => r.regex.source));
    s.pathAllow.push({ regex: allow.regex, query: true });
    const notes = [
      ...((rule.resources ?? []).some((r) => r.regex.flags.includes('i'))
        ? ['path.allow compares case exactly: (?i) is dropped, other letter cases need a login']
        : []),
      ...(allow.withoutQuery ? [] : ['a resource that does not end with $ is public only with a query string; without one it needs a login']),
    ];
    say(s, rule, '.path.allow', `${describe(rule)}: public paths`, notes.length === 0 ? null : notes.join('; '));
    s.openings.push({ line: s.lines.length - 1, entries: s.entries.length, sources: (rule.resources ?? []).map((r) => r.regex.source) });
    return;
  }
  if (!maybe && rule.policy === 'bypass' && onlyNetworks) {
    s.ipBypass.push(...(rule.networks ?? []));
    say(s, rule, '.ip.bypass', `${describe(rule)}: these addresses pass without login`);
    s.openings.push({ line: s.lines.length - 1, entries: s.entries.length, sources: null });
    return;
  }
  if (!maybe && rule.policy === 'deny' && onlyNetworks) {
    s.ipBlock.push(...(rule.networks ?? []));
    say(s, rule, '.ip.block', `${describe(rule)}: refused`, earlier > 0 ? 'ip.block is decided before the earlier rules, which Authelia tried first' : null);
    return;
  }
  const why: string[] = [];
  let policy = rule.policy;
  let users: string[] = [];
  let groups: string[] = [];
  if (maybe) why.push('the domain is decided per person or by a regular expression Portcullis cannot route by');
  if (rule.networks !== null) why.push('an entry cannot depend on the client address');
  if (rule.query !== null) why.push('query conditions have no counterpart');
  if (rule.policy === 'bypass') why.push('an entry cannot make a path public');
  if (rule.subject !== null && policy !== 'deny') {
    const subject = subjectOf(rule.subject);
    if (typeof subject === 'string') why.push(subject);
    else ({ users, groups } = subject);
  }
  if (why.length > 0) {
    // The conditions it cannot keep are dropped, so the entry catches more requests: it takes the
    // strictest policy of this rule and every later one, which is never less than Authelia's answer.
    policy = maxPolicy('one_factor', policy, later.all);
    users = [];
    groups = [];
  }
  const sources = (rule.resources ?? []).map((r) => r.regex.source);
  const match = onPathAndQuery(sources, true);
  const wider = caseMatters(sources) || !match.withoutQuery;
  if (why.length === 0 && wider && policyLevel(policy) < policyLevel(later.otherCase)) {
    policy = maxPolicy(policy, later.otherCase);
    users = [];
    groups = [];
    why.push(
      `the entry also catches requests Authelia sends to a later rule (${caseMatters(sources) ? 'Portcullis compares paths entries without regard to case' : 'a resource without $ also matches a path followed by "?"'}); it takes their ${later.otherCase}`,
    );
  }
  const entry: Record<string, unknown> = { match: sources.length === 0 ? '^' : match.regex };
  if (sources.length > 0) entry.query = true;
  if (rule.methods !== null) entry.methods = [...rule.methods];
  Object.assign(entry, entryBody(policy, users, groups));
  const target = `.paths[${s.entries.length}]`;
  s.entries.push(entry);
  s.entrySources.push(sources.length === 0 ? null : sources);
  if (why.length === 0 && rule.subject !== null && (users.length > 0 || groups.length > 0)) {
    const subject = subjectOf(rule.subject);
    const inexact = typeof subject === 'string' ? null : subject.inexact;
    if (inexact !== null) why.push(inexact);
    if (!toDeny) why.push('people outside the subject are refused here, where Authelia goes on to the next rules');
  }
  if (why.length === 0 && rule.subject !== null && rule.policy === 'deny' && !toDeny) why.push('everyone is refused here, not only the subject');
  // An entry with methods applies to a request whose method the proxy did not name (to every method):
  // exact only when the proxy forwards it, as every shipped example does.
  const methodNote =
    rule.methods !== null && policyLevel(policy) < policyLevel(later.all) ? ' (the proxy must forward the request method, as the examples do)' : '';
  say(s, rule, target, `${describe(rule)}: ${describeEntry(policy, users, groups)}${methodNote}`, why.length === 0 ? null : why.join('; '));
}

function describeEntry(policy: AutheliaPolicy, users: string[], groups: string[]): string {
  const who = [...(users.length > 0 ? [`users ${users.join(',')}`] : []), ...(groups.length > 0 ? [`groups ${groups.join(',')}`] : [])].join(' and ');
  const what = policy === 'deny' ? 'refused' : policy === 'two_factor' ? 'second factor required' : 'a login is enough';
  return who === '' ? what : `${who} only; ${what}`;
}

/** What is left when no rule matches: the last unconditional rule of the domain, or default_policy. */
function applyFallback(s: AppState, fallback: AutheliaPolicy, source: AutheliaRule | null): void {
  const from = source === null ? 'default_policy' : "this domain's last unconditional rule";
  const weakerEntries = s.entries.some((e) => !('require' in e) && !JSON.stringify(e.users ?? {}).includes(EVERYONE));
  if (fallback === 'one_factor') {
    say(s, source, '', `${from} one_factor: every logged-in person passes`);
  } else if (fallback === 'bypass') {
    s.pathAllow.push({ regex: '^', query: true });
    say(s, source, '.path.allow', `${from} bypass: every other path is public`);
  } else if (fallback === 'two_factor' && !weakerEntries) {
    s.app.require_second_factor = true;
    say(s, source, '.require_second_factor', `${from} two_factor: a second factor is required`);
  } else {
    const target = `.paths[${s.entries.length}]`;
    s.entries.push({ match: '^', ...entryBody(fallback, [], []) });
    s.entrySources.push(null);
    const kills = s.pathAllow.length > 0 || s.ipBypass.length > 0;
    say(
      s,
      source,
      target,
      `${from} ${fallback}: ${fallback === 'deny' ? 'everything else is refused' : 'a second factor is required everywhere else'}`,
      kills ? 'this last entry matches every path, so public paths and bypass addresses of this domain need a login' : null,
    );
  }
}

function translateApp(ac: AutheliaAccessControl, hosts: HostSet, name: string | null, lines: TranslationLine[]): Record<string, unknown> | null {
  const where = name === null ? 'default' : `apps.${name}`;
  const reaching = ac.rules.map((rule) => ({ rule, applies: appliesTo(rule, hosts) })).filter((r) => r.applies !== 'no');
  if (hosts.kind === 'rest' && reaching.length === 0) return null;
  const cut = reaching.findIndex((r) => r.applies === 'yes' && isUnconditional(r.rule));
  const used = cut === -1 ? reaching : reaching.slice(0, cut);
  const fallbackRule = cut === -1 ? null : reaching[cut].rule;
  const fallback = fallbackRule?.policy ?? ac.defaultPolicy;
  const s: AppState = { name, where, app: {}, entries: [], pathAllow: [], ipBypass: [], ipBlock: [], lines, openings: [], entrySources: [] };
  used.forEach(({ rule, applies }, i) => {
    const next = used.slice(i + 1).map((r) => r.rule);
    const own = rule.resources?.map((r) => r.source) ?? null;
    // Another letter case of a path this rule names misses every later rule with the same resources too.
    const otherCase = next.filter((r) => !sameList(own, r.resources?.map((x) => x.source) ?? null));
    const later = { all: maxPolicy(fallback, ...next.map((r) => r.policy)), otherCase: maxPolicy(fallback, ...otherCase.map((r) => r.policy)) };
    translateRule(s, rule, applies === 'maybe', later, i, fallsToDeny(used, i, fallback));
  });
  applyFallback(s, fallback, fallbackRule);
  for (const o of s.openings) {
    // An entry after a public path or a bypass address takes the request first in Portcullis; in
    // Authelia the earlier bypass rule would have won.
    if (s.entrySources.slice(o.entries).some((e) => mayOverlap(e, o.sources)) && lines[o.line].stricter === null) {
      lines[o.line] = { ...lines[o.line], stricter: "a request that a later rule's paths entry also matches needs a login (Authelia lets it through)" };
    }
  }
  if (cut !== -1)
    for (const r of reaching.slice(cut + 1))
      say(s, r.rule, '', `${describe(r.rule)}: never reached for these hosts (rule ${fallbackRule?.number} matches every request first)`);
  const app = s.app;
  if (hosts.kind === 'exact') app.domain = hosts.host;
  if (hosts.kind === 'wildcard') app.domain = `*.${hosts.suffix}`;
  if (s.pathAllow.length > 0) app.path = { allow: s.pathAllow };
  const ip: Record<string, string[]> = {};
  if (s.ipBypass.length > 0) ip.bypass = s.ipBypass;
  if (s.ipBlock.length > 0) ip.block = s.ipBlock;
  if (Object.keys(ip).length > 0) app.ip = ip;
  if (s.entries.length > 0) app.paths = s.entries;
  return app;
}

/** Translates the whole `access_control` section. */
export function translateAutheliaAccess(ac: AutheliaAccessControl): Translation {
  const lines: TranslationLine[] = [];
  const apps: Record<string, unknown> = {};
  const taken = new Set<string>(['default']);
  for (const hosts of hostSets(ac)) {
    const name = appName(hosts, taken);
    const app = translateApp(ac, hosts, name, lines);
    if (app !== null) apps[name] = app;
  }
  const document: Record<string, unknown> = {};
  const rest = translateApp(ac, { kind: 'rest' }, null, lines);
  if (rest !== null) {
    document.default_policy = 'allow_authenticated';
    document.default = rest;
  } else if (ac.defaultPolicy === 'deny') {
    document.default_policy = 'deny';
    lines.push({ rule: null, line: null, target: 'default_policy', text: 'default_policy deny: hosts no rule names are refused', stricter: null });
  } else {
    document.default_policy = 'allow_authenticated';
    const s: AppState = { name: null, where: 'default', app: {}, entries: [], pathAllow: [], ipBypass: [], ipBlock: [], lines, openings: [], entrySources: [] };
    applyFallback(s, ac.defaultPolicy, null);
    const app: Record<string, unknown> = { ...s.app };
    if (s.pathAllow.length > 0) app.path = { allow: s.pathAllow };
    if (s.entries.length > 0) app.paths = s.entries;
    if (Object.keys(app).length > 0) document.default = app;
  }
  if (Object.keys(apps).length > 0) document.apps = apps;
  for (const rule of ac.rules) {
    if (!lines.some((l) => l.rule === rule.number)) {
      lines.push({
        rule: rule.number,
        line: rule.line,
        target: '—',
        text: `${describe(rule)}: reaches no host (every host it names is decided by an earlier rule)`,
        stricter: null,
      });
    }
  }
  return { document, lines };
}
