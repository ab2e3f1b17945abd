import { request } from 'node:http';
import { generate } from 'otplib';
import { TOTP_SECRET } from './credentials';
import { cookieFrom, type RunningGateway } from './server';

export const SESSION_COOKIE = 'portcullis-session';

/** A browser-like Accept header: with it, forward auth answers in browser mode. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** POSTs a JSON body (or a raw string, sent as is) with `Content-Type: application/json` unless told otherwise. */
export function postJson(gw: RunningGateway, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gw.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Logs in and returns the `Cookie` header value that carries the session; fails the test on anything but 200. */
export async function loginCookie(gw: RunningGateway, email: string, password: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await postJson(gw, '/api/login', { email, password }, headers);
  if (res.status !== 200) throw new Error(`login as ${email} answered ${res.status}`);
  const cookie = cookieFrom(res, SESSION_COOKIE);
  if (cookie === null) throw new Error('login set no session cookie');
  return `${SESSION_COOKIE}=${cookie.value}`;
}

/** Asks `/api/auth/<proxy>` the way a proxy would. */
export function askForwardAuth(gw: RunningGateway, proxy: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return fetch(`${gw.url}/api/auth/${proxy}`, { method, redirect: 'manual', headers });
}

/** The forwarded headers traefik/caddy send for `url`. */
export function forwardedFor(url: string): Record<string, string> {
  const u = new URL(url);
  return { 'x-forwarded-proto': u.protocol.slice(0, -1), 'x-forwarded-host': u.host, 'x-forwarded-uri': `${u.pathname}${u.search}` };
}

/** The headers `proxy` sends for `url`: nginx's X-Original-URL, or the X-Forwarded-* of traefik and caddy. */
export function forwardedBy(proxy: string, url: string): Record<string, string> {
  return proxy === 'nginx' ? { 'x-original-url': url } : forwardedFor(url);
}

/** The TOTP code for `secret` at `epochSeconds` (now by default). */
export function totpCode(secret = TOTP_SECRET, epochSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
  return generate({ secret, epoch: epochSeconds });
}

/** A six-digit code that is not valid in any step from two before to two after now. */
export async function wrongTotpCode(secret = TOTP_SECRET): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const valid = new Set(await Promise.all([-60, -30, 0, 30, 60].map((d) => totpCode(secret, now + d))));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/** The envelope fields every JSON answer must carry, checked together with the API headers. */
export async function expectEnvelope(res: Response, status: number): Promise<Record<string, unknown>> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const body = (await res.json()) as Record<string, unknown>;
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  return body;
}

/** A plain HTTP request to 127.0.0.1 with any Host header (fetch refuses to set Host). */
export function rawRequest(
  port: number,
  host: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}
