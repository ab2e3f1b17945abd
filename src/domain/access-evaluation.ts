import type { AccessDecision } from './access-decision';
import { DENY_ALL, type AccessRules, type AppRules, type NameMatcher, type PathPattern, type PathRule } from './access-rules';
import { checkRequirement, type PresentedCredential } from './login-methods';
import { plainPath, rawQuery, readPath } from './path-readings';
import type { OriginalRequest } from './forwarded-request';
import { inRanges, parseIpInto } from './ip-address';
import type { Identity } from './session';

const LOGIN: AccessDecision = Object.freeze({ kind: 'login_required' });

/** Receives each step of an evaluation, for `explain`; the forward-auth path passes none. */
export type AccessTrace = (step: string, detail: string) => void;

// Scratch for the parsed client address: evaluation is synchronous, so one buffer serves every call.
const ADDRESS = new Uint32Array(4);

/**
 * Host as rules compare it: lower-case, without port and trailing dots. Returns the input itself
 * when it already is in that form (the usual case: OriginalRequest.hostname is normalised).
 */
export function hostKey(host: string): string {
  let clean = true;
  for (let i = 0; i < host.length; i += 1) {
    const c = host.charCodeAt(i);
    if ((c >= 65 && c <= 90) || c === 58 || c === 93) {
      clean = false;
      break;
    }
  }
  if (clean && host.charCodeAt(host.length - 1) !== 46) return host;
  let h = host.toLowerCase();
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    return close === -1 ? h : h.slice(0, close + 1);
  }
  const colon = h.indexOf(':');
  if (colon !== -1) h = h.slice(0, colon);
  while (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function isIpLiteral(host: string): boolean {
  if (host.charCodeAt(0) === 91) return true;
  for (let i = 0; i < host.length; i += 1) {
    const c = host.charCodeAt(i);
    if (c !== 46 && (c < 48 || c > 57)) return false;
  }
  return true;
}

/** The rules for a host: exact domain, then the longest `*.suffix`, then the first label, else the fallback. */
export function rulesForHost(rules: AccessRules, host: string | null): AppRules {
  if (host === null || host === '') return rules.fallback;
  const key = hostKey(host);
  const exact = rules.byHost.get(key);
  if (exact !== undefined) return exact;
  const suffixes = rules.bySuffix;
  for (let i = 0; i < suffixes.length; i += 1) {
    const { suffix } = suffixes[i];
    // The suffix starts with '.', so `evilwiki.example.com` never matches `*.wiki.example.com`.
    if (key.length > suffix.length && key.endsWith(suffix)) return suffixes[i].app;
  }
  // An IP-literal host has no first label to speak of (`10.0.0.5` must not pick an app named `10`).
  if (rules.byLabel.size > 0 && !isIpLiteral(key)) {
    const dot = key.indexOf('.');
    const byLabel = rules.byLabel.get(dot === -1 ? key : key.slice(0, dot));
    if (byLabel !== undefined) return byLabel;
  }
  return rules.fallback;
}

function matchesName(m: NameMatcher, identity: Identity): boolean {
  if (m.literals.size > 0 && (m.literals.has(identity.username.toLowerCase()) || (identity.email !== '' && m.literals.has(identity.email.toLowerCase())))) {
    return true;
  }
  const patterns = m.patterns;
  for (let i = 0; i < patterns.length; i += 1) {
    if (patterns[i].test(identity.username) || (identity.email !== '' && patterns[i].test(identity.email))) return true;
  }
  return false;
}

function matchesPath(patterns: readonly PathPattern[], path: string, uri: string): boolean {
  for (let i = 0; i < patterns.length; i += 1) {
    const p = patterns[i];
    if (p.regex.test(p.query ? `${path}?${rawQuery(uri)}` : path)) return true;
  }
  return false;
}

/**
 * True when one reading of the path needs no login: it matches no `path.block` and either matches
 * `path.allow` or a block list exists (then everything else is public).
 */
function isPublicReading(app: AppRules, path: string, uri: string): boolean {
  if (app.pathBlock.length > 0 && matchesPath(app.pathBlock, path, uri)) return false;
  return app.pathBlock.length > 0 || matchesPath(app.pathAllow, path, uri);
}

/**
 * Whether the path is public: only when every reading an upstream may serve is public (the
 * strictest decision wins); an unreadable path never is; an ambiguous one is returned as such.
 * A plain path has one reading and is judged without building anything.
 */
function publicPath(app: AppRules, uri: string, trace: AccessTrace | undefined): boolean | string {
  const plain = plainPath(uri);
  if (plain !== null) {
    const open = isPublicReading(app, plain, uri);
    if (open && trace !== undefined) trace('path', `${plain} is public: allow`);
    return open;
  }
  const read = readPath(uri);
  if (read.kind === 'ambiguous') return read.why;
  if (read.kind === 'unreadable') {
    if (trace !== undefined) trace('path', 'the path cannot be read (broken encoding or control characters): never public');
    return false;
  }
  for (let i = 0; i < read.paths.length; i += 1) {
    if (!isPublicReading(app, read.paths[i], uri)) {
      if (trace !== undefined) trace('path', `${read.paths[i]} is not public: the strictest reading decides`);
      return false;
    }
  }
  if (trace !== undefined) trace('path', `${read.paths.join(', ')} ${read.paths.length === 1 ? 'is' : 'are'} public: allow`);
  return true;
}

function hasGroup(required: ReadonlySet<string>, groups: readonly string[]): boolean {
  for (let i = 0; i < groups.length; i += 1) if (required.has(groups[i])) return true;
  return false;
}

/**
 * The access decision, in this order: ip.block → ip.bypass → ip.allow → path (public paths) →
 * login → users / oauth / groups / totp → allow. An address that does not parse is refused before
 * anything else; `default_policy: deny` refuses hosts no application claims.
 */
/**
 * Why an access token may not open `app`, or null when it may (the owner's own rules still apply
 * after this): the application refuses tokens, or the token is scoped to other applications. A
 * request for no named application (the default rules) never matches a scope.
 */
function tokenRefusal(app: AppRules, apps: readonly string[] | null, trace: AccessTrace | undefined): AccessDecision | null {
  if (app.tokens === 'deny') {
    if (trace !== undefined) trace('tokens', 'this application refuses access tokens (tokens: deny): deny');
    return app.denied.tokens_denied;
  }
  if (apps !== null && (app.name === null || !apps.includes(app.name))) {
    if (trace !== undefined) trace('token', `the token opens ${apps.join(', ')} only: deny`);
    return app.denied.token_scope;
  }
  return null;
}

/**
 * The `paths` entries that apply to the request (issue 33): for each reading of the path, the first
 * entry whose pattern and method match it (a plain path: that entry itself); several readings may
 * pick several entries, and every one of them must pass (the strictest wins). Null when none applies; a string (why) when the path
 * cannot be judged: ambiguous, unreadable, or absent (no request named), so no entry may be skipped.
 */
function applicablePathRules(app: AppRules, original: OriginalRequest | null, trace: AccessTrace | undefined): PathRule | readonly PathRule[] | null | string {
  if (original === null) return 'no request path was forwarded';
  const uri = original.uri;
  const plain = plainPath(uri);
  if (plain !== null) {
    const rule = firstPathRule(app.paths, plain, uri, original.method);
    if (trace !== undefined) tracePathRule(trace, plain, rule);
    return rule;
  }
  const read = readPath(uri);
  if (read.kind === 'ambiguous') return read.why;
  if (read.kind === 'unreadable') return 'the path cannot be read (broken encoding or control characters)';
  let found: PathRule[] | null = null;
  for (const path of read.paths) {
    const rule = firstPathRule(app.paths, path, uri, original.method);
    if (trace !== undefined) tracePathRule(trace, path, rule);
    if (rule !== null && (found === null || !found.includes(rule))) (found ??= []).push(rule);
  }
  return found;
}

function firstPathRule(rules: readonly PathRule[], path: string, uri: string, method: string | null): PathRule | null {
  for (let i = 0; i < rules.length; i += 1) {
    const rule = rules[i];
    // A method the proxy did not name could be any: the entry applies (ambiguity never widens access).
    if (rule.methods !== null && method !== null && !rule.methods.has(method.toUpperCase())) continue;
    if (rule.match.regex.test(rule.match.query ? `${path}?${rawQuery(uri)}` : path)) return rule;
  }
  return null;
}

function tracePathRule(trace: AccessTrace, path: string, rule: PathRule | null): void {
  trace(
    'paths',
    rule === null
      ? `${path} matches no entry`
      : `${path} matches ${rule.where} (${rule.match.regex.source.replace(/\\\//g, '/')}${rule.methods === null ? '' : `, ${[...rule.methods].join(' ')}`})`,
  );
}

/** What a requirement sees of the credential: a session's proofs, or the kind of machine credential. */
function presented(identity: Identity): PresentedCredential {
  if (identity.token !== undefined) return TOKEN;
  if (identity.provider === 'jwt') return JWT;
  if (identity.proven !== undefined) {
    // One credential object per session identity (identities are cached per session), not per request.
    let credential = SESSIONS.get(identity);
    if (credential === undefined) {
      credential = Object.freeze({ kind: 'session', proven: identity.proven });
      SESSIONS.set(identity, credential);
    }
    return credential;
  }
  return BASIC;
}
const SESSIONS = new WeakMap<Identity, PresentedCredential>();
const TOKEN: PresentedCredential = Object.freeze({ kind: 'token' });
const JWT: PresentedCredential = Object.freeze({ kind: 'jwt' });
const BASIC: PresentedCredential = Object.freeze({ kind: 'basic' });

/**
 * The applicable entries' verdict for a person the application itself lets in: the first refusal,
 * else the first step-up, else null (every entry passes).
 */
function judgePathRules(
  app: AppRules,
  entries: PathRule | readonly PathRule[],
  identity: Identity,
  now: number,
  trace: AccessTrace | undefined,
): AccessDecision | null {
  if (!Array.isArray(entries)) return judgePathRule(app, entries as PathRule, identity, now, trace);
  let stepUp: AccessDecision | null = null;
  for (const rule of entries as readonly PathRule[]) {
    const verdict = judgePathRule(app, rule, identity, now, trace);
    if (verdict === null) continue;
    if (verdict.kind !== 'step_up_required') return verdict;
    stepUp ??= verdict;
  }
  return stepUp;
}

/**
 * One entry's verdict: users and groups refuse before a step-up is asked (a person who may never
 * enter is not asked to prove more first); null when it passes.
 */
function judgePathRule(app: AppRules, rule: PathRule, identity: Identity, now: number, trace: AccessTrace | undefined): AccessDecision | null {
  if (rule.usersBlock.size > 0 && matchesName(rule.usersBlock, identity)) {
    if (trace !== undefined) trace(rule.where, `users.block: ${identity.username} is blocked: deny`);
    return app.denied.user_blocked;
  }
  // An OAuth identity never matches an entry's users.allow: a provider's `alice` is not the local one.
  if (rule.usersAllow.size > 0 && (identity.oauth || !matchesName(rule.usersAllow, identity))) {
    if (trace !== undefined) trace(rule.where, `users.allow: ${identity.username} is not listed: deny`);
    return app.denied.user_not_allowed;
  }
  if (rule.groups.size > 0 && !hasGroup(rule.groups, identity.groups)) {
    if (trace !== undefined) trace(rule.where, `groups: ${identity.username} is in none of ${[...rule.groups].join(', ')}: deny`);
    return app.denied.group_missing;
  }
  if (rule.require === null) return null;
  const outcome = checkRequirement(rule.require, presented(identity), now);
  if (outcome.kind === 'met') {
    if (trace !== undefined) trace(rule.where, 'require: met');
    return null;
  }
  if (outcome.kind === 'impossible') {
    if (trace !== undefined) trace(rule.where, 'require: this credential can never meet it (tokens, JWTs and Basic cannot step up): deny');
    return app.denied.step_up_impossible;
  }
  const maxAge = rule.require.maxAgeMs === null ? null : rule.require.maxAgeMs / 1000;
  if (trace !== undefined)
    trace(rule.where, `require: not met; a step-up with ${outcome.methods.join(' or ')}${maxAge === null ? '' : ` (at most ${maxAge} s old)`} would`);
  return app.name === null
    ? { kind: 'step_up_required', methods: outcome.methods, maxAge }
    : { kind: 'step_up_required', methods: outcome.methods, maxAge, app: app.name };
}

export function evaluateAccess(
  rules: AccessRules,
  original: OriginalRequest | null,
  identity: Identity | null,
  ip: string,
  /** The time requirements' `max_age` is measured at (ms since the epoch). */
  now: number,
  trace?: AccessTrace,
): AccessDecision {
  const app = rulesForHost(rules, original === null ? null : original.hostname);
  if (trace !== undefined)
    trace('application', app.name ?? (app === DENY_ALL ? 'none (default_policy: deny)' : rules.fallback === app ? 'none (default)' : '?'));
  if (app === DENY_ALL) return app.denied.default_deny;

  const family = parseIpInto(ip, ADDRESS);
  if (family === 0) {
    if (trace !== undefined) trace('ip', `"${ip}" is not an IP address: deny`);
    return app.denied.bad_client_ip;
  }
  if (app.ipBlock.size > 0 && inRanges(app.ipBlock, family, ADDRESS)) {
    if (trace !== undefined) trace('ip.block', `${ip} is blocked: deny`);
    return app.denied.ip_blocked;
  }
  // Per-path entries are found once: they can take away what ip.bypass and public paths would give.
  let entries: PathRule | readonly PathRule[] | null = null;
  if (app.paths.length > 0) {
    const found = applicablePathRules(app, original, trace);
    if (typeof found === 'string') {
      if (trace !== undefined) trace('paths', `cannot be judged (${found}): refused with 400`);
      return app.name === null ? { kind: 'ambiguous_path', why: found } : { kind: 'ambiguous_path', why: found, app: app.name };
    }
    entries = found;
  }
  if (app.ipBypass.size > 0 && inRanges(app.ipBypass, family, ADDRESS)) {
    if (entries === null) {
      if (trace !== undefined) trace('ip.bypass', `${ip} bypasses login: allow`);
      return app.allowed;
    }
    if (trace !== undefined) trace('ip.bypass', `${ip} would bypass login, but a paths entry applies: it does not`);
  }
  if (app.ipAllow.size > 0 && !inRanges(app.ipAllow, family, ADDRESS)) {
    if (trace !== undefined) trace('ip.allow', `${ip} is not in ip.allow: deny`);
    return app.denied.ip_not_allowed;
  }
  if (original !== null && entries === null && (app.pathAllow.length > 0 || app.pathBlock.length > 0)) {
    const open = publicPath(app, original.uri, trace);
    if (open === true) return app.allowed;
    if (typeof open === 'string') {
      // Only where a path rule could decide: an application without path rules judges every path alike.
      if (trace !== undefined) trace('path', `ambiguous (${open}): refused with 400`);
      return app.name === null ? { kind: 'ambiguous_path', why: open } : { kind: 'ambiguous_path', why: open, app: app.name };
    }
  }
  if (identity === null) {
    if (trace !== undefined) trace('login', 'nobody is logged in: login required');
    return LOGIN;
  }
  if (identity.token !== undefined) {
    const refused = tokenRefusal(app, identity.token.apps, trace);
    if (refused !== null) return refused;
  }
  if (app.usersBlock.size > 0 && matchesName(app.usersBlock, identity)) {
    if (trace !== undefined) trace('users.block', `${identity.username} is blocked: deny`);
    return app.denied.user_blocked;
  }
  if (app.usersAllow.size > 0 || app.oauthWhitelist.size > 0) {
    // Once any allow list exists only listed people pass: local accounts through users.allow,
    // OAuth accounts through oauth.whitelist only (a provider's username is whatever someone
    // registered there, so `alice` on GitHub is not the local `alice`).
    const listed = identity.oauth ? matchesName(app.oauthWhitelist, identity) : matchesName(app.usersAllow, identity);
    if (!listed) {
      if (trace !== undefined) trace('users.allow', `${identity.username} is on no allow list: deny`);
      return app.denied.user_not_allowed;
    }
  }
  if (app.groups.size > 0 && !hasGroup(app.groups, identity.groups)) {
    if (trace !== undefined) trace('oauth.groups', `${identity.username} is in none of the required groups: deny`);
    return app.denied.group_missing;
  }
  if (app.requireTotp && !identity.totp && !(identity.token !== undefined && app.tokens === 'allow')) {
    if (trace !== undefined) trace('require_totp', `${identity.username}'s session did not pass TOTP: deny`);
    return app.denied.totp_required;
  }
  if (entries !== null) {
    const verdict = judgePathRules(app, entries, identity, now, trace);
    if (verdict !== null) return verdict;
  }
  if (trace !== undefined) trace('allow', `${identity.username} passes every rule: allow`);
  return app.allowed;
}
