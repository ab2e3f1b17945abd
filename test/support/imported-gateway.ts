import { readFileSync } from 'node:fs';

/** Talking to a gateway started on the files `portcullis import` wrote. */

/** The environment file as the gateway's environment. */
export function envOf(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line);
    // A value in single quotes (one holding `$`, a space…) is read as a shell reads it.
    if (m !== null) env[m[1]] = /^'.*'$/.test(m[2]) ? m[2].slice(1, -1).replace(/'\\''/g, "'") : m[2];
  }
  return env;
}

export function post(url: string, path: string, body: unknown, cookie?: string): Promise<Response> {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  });
}

export function sessionCookie(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('portcullis-session='));
  if (set === undefined) throw new Error(`no session cookie (status ${res.status})`);
  return set.split(';')[0];
}

export function forwardAuth(url: string, target: string, cookie?: string): Promise<Response> {
  const u = new URL(target);
  return fetch(`${url}/api/auth/traefik`, {
    redirect: 'manual',
    headers: {
      'x-forwarded-proto': 'https',
      'x-forwarded-host': u.host,
      'x-forwarded-uri': `${u.pathname}${u.search}`,
      'x-forwarded-method': 'GET',
      ...(cookie === undefined ? {} : { cookie }),
    },
  });
}
