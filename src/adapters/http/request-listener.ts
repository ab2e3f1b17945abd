import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { NOT_FOUND } from './answers';
import { isForwardAuthPath, type ForwardAuthHandler } from './forward-auth';
import { writeAnswer } from './raw-renderer';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id';

/** What `http.createServer` takes; resolves when the answer has been handed over. */
export type GatewayRequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

function notFound(req: IncomingMessage, res: ServerResponse): void {
  writeAnswer(res, NOT_FOUND, requestIdOf(req.headers[REQUEST_ID_HEADER]), req.method === 'HEAD');
}

/**
 * The path of a request target as loosely as any component might read it: an absolute-form target
 * (`http://host/api/auth/nginx`) loses its scheme and authority, the query goes, percent-escapes
 * are decoded, backslashes count as slashes, repeated slashes merge, and case is ignored. Used only
 * to refuse, so reading too much into a path can only refuse more.
 */
function loosePath(url: string): string {
  let path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const q = path.search(/[?#]/);
  if (q !== -1) path = path.slice(0, q);
  try {
    path = decodeURIComponent(path);
  } catch {
    // Broken escapes: judge the raw text.
  }
  return path
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .toLowerCase();
}

/** True for anything that could be read as a forward-auth path, whatever its spelling. */
export function mayBeForwardAuthPath(url: string | undefined): boolean {
  if (url === undefined) return false;
  if (isForwardAuthPath(url)) return true;
  const path = loosePath(url);
  return path === '/api/auth' || path.startsWith('/api/auth/') || path.startsWith('/api/auth;');
}

/**
 * The server's request listener: forward-auth requests go straight to their handler, before Koa
 * creates a context and attaches its finish listeners for them (the hot path does not need
 * either); every other request goes to the Koa application.
 */
export function forwardAuthFirst(app: Koa, forwardAuth: ForwardAuthHandler): GatewayRequestListener {
  const koa = app.callback();
  return (req, res) => (isForwardAuthPath(req.url) ? forwardAuth(req, res) : koa(req, res));
}

/**
 * The public listener when forward auth has its own (FORWARD_AUTH_PORT): the UI and the browser
 * API only. Forward auth answers a proxy's question and hands out the upstream's identity and
 * Basic credentials, so on the public port it does not exist: every spelling of `/api/auth/*`
 * gets the plain 404 envelope, and Koa never sees it.
 */
export function publicOnly(app: Koa): GatewayRequestListener {
  const koa = app.callback();
  return (req, res) => (mayBeForwardAuthPath(req.url) ? notFound(req, res) : koa(req, res));
}

const PROBES = new Set(['/api/healthcheck', '/api/ready', '/api/health']);

/**
 * The internal forward-auth listener: `/api/auth/*` for the proxy, and the health and readiness
 * probes (so a proxy or orchestrator can check the address it actually uses); everything else,
 * the UI and the login API included, is 404 there.
 */
export function forwardAuthOnly(app: Koa, forwardAuth: ForwardAuthHandler): GatewayRequestListener {
  const koa = app.callback();
  return (req, res) => {
    const url = req.url ?? '';
    if (isForwardAuthPath(url)) return forwardAuth(req, res);
    const q = url.indexOf('?');
    if (PROBES.has(q === -1 ? url : url.slice(0, q))) return koa(req, res);
    return notFound(req, res);
  };
}
