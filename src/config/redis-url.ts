/** Where Redis is, parsed from `REDIS_URL`. Passwords are kept here only; never log this object whole. */
export type RedisTarget =
  | {
      readonly kind: 'standalone';
      readonly host: string;
      readonly port: number;
      readonly db: number;
      readonly tls: boolean;
      readonly username?: string;
      readonly password?: string;
    }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly { readonly host: string; readonly port: number }[];
      /** The master group name the sentinels watch. */
      readonly masterName: string;
      readonly db: number;
      readonly tls: boolean;
      readonly username?: string;
      readonly password?: string;
      readonly sentinelPassword?: string;
    };

export type RedisUrlResult = { readonly ok: true; readonly target: RedisTarget } | { readonly ok: false; readonly problem: string };

const SCHEMES: Record<string, { sentinel: boolean; tls: boolean; defaultPort: number }> = {
  'redis:': { sentinel: false, tls: false, defaultPort: 6379 },
  'rediss:': { sentinel: false, tls: true, defaultPort: 6379 },
  'redis+sentinel:': { sentinel: true, tls: false, defaultPort: 26379 },
  'rediss+sentinel:': { sentinel: true, tls: true, defaultPort: 26379 },
};

const FORMS = 'redis://[user:password@]host[:port][/db], rediss://... (TLS), or redis+sentinel://[user:password@]host:port[,host:port...]/master-name[/db]';

function hostPort(raw: string, defaultPort: number): { host: string; port: number } | null {
  // [v6]:port, [v6], name:port, name
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(raw);
  if (m === null) return null;
  const port = m[3] === undefined ? defaultPort : Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: m[1] ?? m[2], port };
}

function decode(part: string | undefined): string | undefined {
  if (part === undefined || part === '') return undefined;
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/**
 * Parses `REDIS_URL`. Accepted forms: `redis://`, `rediss://` (TLS), and for Sentinel
 * `redis+sentinel://` or `rediss+sentinel://` (TLS to master and sentinels) with a comma-separated
 * list of sentinel addresses and the master group name as the first path segment. A Sentinel URL
 * may carry `?sentinelPassword=...` when the sentinels need their own password. Problems never
 * repeat the URL (it may hold a password).
 */
export function parseRedisUrl(raw: string): RedisUrlResult {
  const bad = (why: string): RedisUrlResult => ({ ok: false, problem: `REDIS_URL ${why}; use ${FORMS}` });
  const schemeEnd = raw.indexOf('//');
  const scheme = schemeEnd > 0 ? raw.slice(0, schemeEnd).toLowerCase() : '';
  const form = SCHEMES[scheme];
  if (form === undefined || raw[schemeEnd - 1] !== ':') return bad('has an unknown scheme');
  let rest = raw.slice(schemeEnd + 2);

  let query = '';
  const q = rest.indexOf('?');
  if (q !== -1) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let userinfo: string | undefined;
  const at = rest.lastIndexOf('@');
  if (at !== -1) {
    userinfo = rest.slice(0, at);
    rest = rest.slice(at + 1);
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = (slash === -1 ? '' : rest.slice(slash + 1)).split('/').filter((s) => s !== '');

  let username: string | undefined;
  let password: string | undefined;
  if (userinfo !== undefined) {
    const colon = userinfo.indexOf(':');
    username = decode(colon === -1 ? userinfo : userinfo.slice(0, colon));
    password = colon === -1 ? undefined : decode(userinfo.slice(colon + 1));
    // `redis://secret@host` is how many tools write a password without a user.
    if (colon === -1) {
      password = username;
      username = undefined;
    }
  }

  const params = new URLSearchParams(query);
  for (const key of params.keys()) if (key !== 'sentinelPassword') return bad(`has an unknown query parameter ${key}`);
  if (!form.sentinel && params.has('sentinelPassword')) return bad('has sentinelPassword but is not a Sentinel URL');

  const dbOf = (segment: string | undefined): number | null => {
    if (segment === undefined) return 0;
    return /^\d{1,2}$/.test(segment) ? Number(segment) : null;
  };

  if (!form.sentinel) {
    const addr = hostPort(authority, form.defaultPort);
    if (addr === null) return bad('has no valid host[:port]');
    if (path.length > 1) return bad('has too many path segments');
    const db = dbOf(path[0]);
    if (db === null) return bad('has a database that is not a number');
    return { ok: true, target: { kind: 'standalone', ...addr, db, tls: form.tls, username, password } };
  }

  const sentinels = authority.split(',').map((s) => hostPort(s.trim(), form.defaultPort));
  if (sentinels.length === 0 || sentinels.some((s) => s === null)) return bad('has no valid list of sentinel host:port addresses');
  if (path.length === 0 || path.length > 2) return bad('must name the master group as its path (/master-name[/db])');
  const masterName = decode(path[0]);
  if (masterName === undefined) return bad('has an invalid master group name');
  const db = dbOf(path[1]);
  if (db === null) return bad('has a database that is not a number');
  return {
    ok: true,
    target: {
      kind: 'sentinel',
      sentinels: sentinels as { host: string; port: number }[],
      masterName,
      db,
      tls: form.tls,
      username,
      password,
      sentinelPassword: params.get('sentinelPassword') ?? undefined,
    },
  };
}

/** The target without credentials, for logs and readiness answers. */
export function describeRedisTarget(target: RedisTarget): string {
  const scheme = target.tls ? 'rediss' : 'redis';
  if (target.kind === 'standalone') return `${scheme}://${target.host}:${target.port}/${target.db}`;
  return `${scheme}+sentinel://${target.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}/${target.masterName}/${target.db}`;
}
