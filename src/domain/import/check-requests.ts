import type { AccessDecision } from '../access-decision';
import { evaluateAccess } from '../access-evaluation';
import type { AccessRules } from '../access-rules';
import { parseForwarded } from '../forwarded-request';
import { withProven } from '../login-methods';
import { err, ok, type Result } from '../result';
import type { Identity } from '../session';
import type { AutheliaOutcome, CheckRequest } from './authelia-access';

/**
 * `import --check <requests.txt>`: each line is one request,
 *
 *     GET https://wiki.example.com/admin?x=1 user=alice groups=admins,staff ip=10.0.0.5 factors=2
 *
 * (`user` absent: anonymous; `factors` 1 or 2, default 1; `ip` default 198.51.100.1), decided by the
 * source's semantics and by the written Portcullis rules. Blank lines and `#` comments are skipped.
 */

export interface ParsedCheck {
  readonly line: number;
  readonly text: string;
  readonly request: CheckRequest;
  readonly proto: 'http' | 'https';
}

/** Portcullis's answer, in the same words as the source's. */
export type PortcullisOutcome = 'allow' | 'login' | 'step_up' | 'deny' | 'refused_400';

export interface CheckResult {
  readonly line: number;
  readonly text: string;
  readonly source: AutheliaOutcome;
  readonly portcullis: PortcullisOutcome;
  /** Portcullis lets in what the source would not. */
  readonly wider: boolean;
}

const KEYS = ['user', 'groups', 'ip', 'factors'];

export function parseCheckRequests(text: string, file: string): Result<ParsedCheck[], string[]> {
  const problems: string[] = [];
  const out: ParsedCheck[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}: line ${i + 1}`;
    const [method, url, ...rest] = line.split(/\s+/);
    const m = /^(https?):\/\/([^/?#]+)([^#]*)$/i.exec(url ?? '');
    if (!/^[A-Za-z]+$/.test(method) || m === null) {
      problems.push(`${where}: expected "METHOD URL [user=NAME] [groups=a,b] [ip=ADDRESS] [factors=1|2]"`);
      return;
    }
    const fields = new Map<string, string>();
    for (const f of rest) {
      const eq = f.indexOf('=');
      const key = eq === -1 ? f : f.slice(0, eq);
      if (eq === -1 || !KEYS.includes(key)) problems.push(`${where}: unknown field "${f}" (known: ${KEYS.join(', ')})`);
      else fields.set(key, f.slice(eq + 1));
    }
    const factors = fields.get('factors') ?? '1';
    if (factors !== '1' && factors !== '2') problems.push(`${where}: factors must be 1 or 2`);
    const user = fields.get('user');
    const groups = (fields.get('groups') ?? '').split(',').filter((g) => g !== '');
    out.push({
      line: i + 1,
      text: line,
      proto: m[1].toLowerCase() as 'http' | 'https',
      request: {
        host: m[2].replace(/:\d+$/, '').toLowerCase(),
        uri: m[3] === '' ? '/' : m[3],
        method: method.toUpperCase(),
        user: user === undefined ? null : { username: user, groups, factors: factors === '2' ? 2 : 1 },
        ip: fields.get('ip') ?? '198.51.100.1',
      },
    });
  });
  return problems.length > 0 ? err(problems) : ok(out);
}

function outcomeOf(d: AccessDecision): PortcullisOutcome {
  switch (d.kind) {
    case 'allow':
      return 'allow';
    case 'login_required':
      return 'login';
    case 'step_up_required':
      return 'step_up';
    case 'ambiguous_path':
      return 'refused_400';
    default:
      return 'deny';
  }
}

/** The written rules' answer to one request (a session that proved a password, and TOTP for factors=2). */
export function portcullisDecide(rules: AccessRules, check: ParsedCheck, now: number): PortcullisOutcome {
  const r = check.request;
  const original = parseForwarded({ proxy: 'traefik', proto: check.proto, host: r.host, uri: r.uri, method: r.method });
  if (!original.ok) return 'refused_400';
  const identity: Identity | null =
    r.user === null
      ? null
      : {
          username: r.user.username,
          name: r.user.username,
          email: '',
          groups: r.user.groups,
          provider: 'username',
          oauth: false,
          totp: r.user.factors === 2,
          proven: withProven({}, r.user.factors === 2 ? ['password', 'totp'] : ['password'], now),
        };
  return outcomeOf(evaluateAccess(rules, original.value, identity, r.ip, now));
}

/** Both answers for every request; `wider` marks where Portcullis lets in what the source refuses. */
export function compareDecisions(checks: readonly ParsedCheck[], source: (r: CheckRequest) => AutheliaOutcome, rules: AccessRules, now: number): CheckResult[] {
  return checks.map((c) => {
    const a = source(c.request);
    const p = portcullisDecide(rules, c, now);
    return { line: c.line, text: c.text, source: a, portcullis: p, wider: p === 'allow' && a !== 'allow' };
  });
}
