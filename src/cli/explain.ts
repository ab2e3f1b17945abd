import { loadAccessRulesFile } from '../config/rules';
import { optionalModules } from '../composition/optional-modules';
import { evaluateAccess } from '../domain/access-evaluation';
import { parseForwarded } from '../domain/forwarded-request';
import { readPath } from '../domain/path-readings';
import type { Identity } from '../domain/session';

const USAGE = `usage: portcullis explain <url> [--user NAME] [--email ADDRESS] [--groups a,b] [--oauth] [--totp] [--token] [--token-apps a,b] [--ip ADDRESS] [--access-config FILE]
Prints which access rule decides a request and why. Without --user the request is anonymous.
--token: the person's access token presents the request (any application); --token-apps: a token scoped to those applications.
ACCESS_CONFIG (or --access-config) names the rules file.`;

const FLAGS = new Set(['user', 'email', 'groups', 'oauth', 'totp', 'token', 'token-apps', 'ip', 'access-config']);
const SWITCHES = new Set(['oauth', 'totp', 'token']);

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
  const original = m === null ? null : parseForwarded({ proxy: 'traefik', proto: m[1], host: m[2], uri: m[3] === '' ? '/' : m[3] });
  if (original === null || !original.ok) {
    write(`"${positional[0]}" is not an http(s) URL the gateway would accept from a proxy`);
    return 2;
  }
  const user = flags.get('user');
  const tokenApps = flags.get('token-apps');
  const token =
    tokenApps !== undefined ? { id: 'explain', apps: listOf(tokenApps) } : flags.get('token') === 'true' ? { id: 'explain', apps: null } : undefined;
  if (token !== undefined && (flags.get('oauth') === 'true' || flags.get('totp') === 'true')) {
    write(`--token and --token-apps speak for an account's access token: no --oauth or --totp with them\n${USAGE}`);
    return 2;
  }
  const identity: Identity | null =
    user === undefined
      ? null
      : {
          username: user,
          name: user,
          email: flags.get('email') ?? '',
          groups: listOf(flags.get('groups') ?? ''),
          provider: token !== undefined ? 'token' : flags.get('oauth') === 'true' ? 'generic' : 'username',
          oauth: flags.get('oauth') === 'true',
          totp: flags.get('totp') === 'true',
          ...(token === undefined ? {} : { token }),
        };
  const ip = flags.get('ip') ?? '198.51.100.1';
  write(`request:     ${original.value.url}`);
  write(`path:        ${describePath(original.value.uri)}`);
  write(`client:      ${ip}${flags.has('ip') ? '' : ' (default; pass --ip)'}`);
  write(
    `person:      ${identity === null ? 'anonymous' : `${identity.username}${identity.oauth ? ' (OAuth)' : ''}${identity.totp ? ' (TOTP passed)' : ''}${describeToken(identity)}`}`,
  );
  const decision = evaluateAccess(rules.value, original.value, identity, ip, Date.now(), (step, detail) => write(`${`${step}:`.padEnd(12)} ${detail}`));
  const headers = decision.kind === 'allow' ? Object.keys(decision.headers ?? {}) : [];
  const outcome =
    decision.kind === 'deny'
      ? `deny (${decision.reason})`
      : decision.kind === 'ambiguous_path'
        ? `refused: 400 Ambiguous path (${decision.why})`
        : decision.kind;
  write(`decision:    ${outcome}${headers.length > 0 ? `; upstream headers: ${headers.join(', ')}` : ''}`);
  return decision.kind === 'allow' ? 0 : 1;
}
