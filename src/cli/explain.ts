import { loadAccessRulesFile } from '../config/rules';
import { optionalModules } from '../composition/optional-modules';
import { evaluateAccess } from '../domain/access-evaluation';
import { parseForwarded } from '../domain/forwarded-request';
import { readPath } from '../domain/path-readings';
import { SESSION_METHODS, withProven, type SessionMethod } from '../domain/login-methods';
import type { Identity } from '../domain/session';

const USAGE = `usage: portcullis explain <url> [--method GET] [--user NAME] [--email ADDRESS] [--groups a,b] [--oauth] [--totp]
         [--login password,totp,passkey,oauth] [--age SECONDS] [--token] [--token-apps a,b] [--jwt] [--basic] [--ip ADDRESS] [--access-config FILE]
Prints which access rule (and which paths entry) decides a request and why. Without --user the request is anonymous.
A person presents a session: --login names what it proved (default: password, with --totp also totp, with --oauth oauth
instead), --age how many seconds ago (default 0), for paths entries' require. Instead of a session:
--token: the person's access token (any application); --token-apps: a token scoped to those applications;
--jwt: a workload's JWT; --basic: HTTP Basic. ACCESS_CONFIG (or --access-config) names the rules file.`;

const FLAGS = new Set(['method', 'user', 'email', 'groups', 'oauth', 'totp', 'login', 'age', 'token', 'token-apps', 'jwt', 'basic', 'ip', 'access-config']);
const SWITCHES = new Set(['oauth', 'totp', 'token', 'jwt', 'basic']);
const CREDENTIALS = ['token', 'token-apps', 'jwt', 'basic'];

/** A comma-separated list, trimmed, without empty entries. */
function listOf(text: string): string[] {
  return text
    .split(',')
    .map((g) => g.trim())
    .filter((g) => g !== '');
}

function describeToken(identity: Identity): string {
  if (identity.token === undefined) return '';
  return identity.token.apps === null ? ' (access token, any application)' : ` (access token for ${identity.token.apps.join(', ')})`;
}

/** The person the flags describe, null when anonymous, or what is wrong with the flags. */
function identityFrom(flags: ReadonlyMap<string, string>, now: number): Identity | null | string {
  const user = flags.get('user');
  const credentials = CREDENTIALS.filter((f) => flags.has(f));
  if (user === undefined) return credentials.length > 0 || flags.has('login') || flags.has('age') ? 'a credential needs --user' : null;
  if (credentials.length > 1 && !(credentials.length === 2 && flags.has('token') && flags.has('token-apps'))) {
    return `--${credentials.join(', --')}: a request presents one credential`;
  }
  const oauth = flags.get('oauth') === 'true';
  const totp = flags.get('totp') === 'true';
  if (credentials.length > 0 && (oauth || totp || flags.has('login') || flags.has('age'))) {
    return `--${credentials[0]} is not a session: no --oauth, --totp, --login or --age with it`;
  }
  const base = { username: user, name: user, email: flags.get('email') ?? '', groups: listOf(flags.get('groups') ?? ''), oauth, totp };
  const tokenApps = flags.get('token-apps');
  if (tokenApps !== undefined || flags.has('token')) {
    return { ...base, provider: 'token', token: { id: 'explain', apps: tokenApps === undefined ? null : listOf(tokenApps) } };
  }
  if (flags.has('jwt')) return { ...base, provider: 'jwt' };
  if (flags.has('basic')) return { ...base, provider: 'basic' };
  const login = flags.has('login') ? listOf(flags.get('login') ?? '') : oauth ? ['oauth'] : totp ? ['password', 'totp'] : ['password'];
  const unknown = login.filter((l) => !(SESSION_METHODS as readonly string[]).includes(l));
  if (unknown.length > 0 || login.length === 0) return `--login takes ${SESSION_METHODS.join(', ')}`;
  const age = Number(flags.get('age') ?? '0');
  if (!Number.isInteger(age) || age < 0) return '--age takes a whole number of seconds';
  return { ...base, provider: oauth ? 'generic' : 'username', proven: withProven({}, login as SessionMethod[], now - age * 1000) };
}

function describePerson(identity: Identity, now: number): string {
  const proven = identity.proven;
  const proofs =
    proven === undefined
      ? ''
      : ` (session: ${Object.entries(proven)
          .map(([m, at]) => `${m} ${Math.round((now - (at as number)) / 1000)} s ago`)
          .join(', ')})`;
  const credential = identity.provider === 'jwt' ? ' (JWT)' : identity.provider === 'basic' ? ' (HTTP Basic)' : '';
  return `${identity.username}${identity.oauth ? ' (OAuth)' : ''}${identity.totp ? ' (TOTP passed)' : ''}${describeToken(identity)}${credential}${proofs}`;
}

/** The readings of a path as the gateway judges them (see path-readings). */
function describePath(uri: string): string {
  const read = readPath(uri);
  switch (read.kind) {
    case 'ambiguous':
      return `ambiguous (${read.why}): refused with 400 by an application with path rules`;
    case 'unreadable':
      return '(no reading: never public)';
    case 'readings':
      return read.paths.length === 1 ? read.paths[0] : `${read.paths[0]}, also read as ${read.paths.slice(1).join(', ')}`;
  }
}

/**
 * `portcullis explain <url> --user <name>`: evaluates the rules file for one request and prints
 * every step that mattered. Returns the exit code (0 allow, 1 deny or login, 2 usage or bad rules).
 */
export function explain(argv: readonly string[], env: NodeJS.ProcessEnv, write: (line: string) => void): number {
  const flags = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(argv[i]);
    if (m === null) {
      positional.push(argv[i]);
      continue;
    }
    if (!FLAGS.has(m[1])) {
      write(`unknown option --${m[1]}\n${USAGE}`);
      return 2;
    }
    const value = m[2] ?? (SWITCHES.has(m[1]) ? 'true' : argv[(i += 1)]);
    if (value === undefined) {
      write(`--${m[1]} needs a value\n${USAGE}`);
      return 2;
    }
    flags.set(m[1], value);
  }
  if (positional.length !== 1) {
    write(USAGE);
    return 2;
  }
  const file = flags.get('access-config') ?? env.ACCESS_CONFIG;
  if (file === undefined || file.trim() === '') {
    write(`no rules file: set ACCESS_CONFIG or pass --access-config\n${USAGE}`);
    return 2;
  }
  const rules = loadAccessRulesFile(file.trim(), optionalModules.yaml());
  if (!rules.ok) {
    write(`the rules file ${file} is not valid:\n${rules.error.map((p) => `  - ${p}`).join('\n')}`);
    return 2;
  }
  const m = /^(https?):\/\/([^/?#]*)(.*)$/i.exec(positional[0]);
  // The URL is read as traefik and caddy forward it (the host and the path exactly as given).
  const method = flags.get('method') ?? 'GET';
  const original = m === null ? null : parseForwarded({ proxy: 'traefik', proto: m[1], host: m[2], uri: m[3] === '' ? '/' : m[3], method });
  if (original === null || !original.ok) {
    write(`"${positional[0]}" is not an http(s) URL the gateway would accept from a proxy`);
    return 2;
  }
  const now = Date.now();
  const identity = identityFrom(flags, now);
  if (typeof identity === 'string') {
    write(`${identity}\n${USAGE}`);
    return 2;
  }
  const ip = flags.get('ip') ?? '198.51.100.1';
  write(`request:     ${original.value.url}`);
  write(`path:        ${describePath(original.value.uri)}`);
  write(`client:      ${ip}${flags.has('ip') ? '' : ' (default; pass --ip)'}`);
  write(`person:      ${identity === null ? 'anonymous' : describePerson(identity, now)}`);
  const decision = evaluateAccess(rules.value, original.value, identity, ip, now, (step, detail) => write(`${`${step}:`.padEnd(12)} ${detail}`));
  const headers = decision.kind === 'allow' ? Object.keys(decision.headers ?? {}) : [];
  const outcome =
    decision.kind === 'deny'
      ? `deny (${decision.reason})`
      : decision.kind === 'ambiguous_path'
        ? `refused: 400 Ambiguous path (${decision.why})`
        : decision.kind === 'step_up_required'
          ? `step-up required: ${decision.methods.join(' or ')}${decision.maxAge === null ? '' : ` within ${decision.maxAge} s`} (a browser is sent to the login page for it)`
          : decision.kind;
  write(`decision:    ${outcome}${headers.length > 0 ? `; upstream headers: ${headers.join(', ')}` : ''}`);
  return decision.kind === 'allow' ? 0 : 1;
}
