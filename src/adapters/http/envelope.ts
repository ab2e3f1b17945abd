import type { ServerResponse } from 'node:http';

/** The JSON answer every API route gives: `{status, message, ...fields}`. */
export function envelope(status: number, message: string, fields?: Record<string, unknown>): Buffer {
  return Buffer.from(JSON.stringify({ status, message, ...fields }));
}

/** Headers every API answer carries. */
export const API_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
});

/** Writes a finished answer straight to the socket (used where Koa's response machinery is too slow). */
export function writeRaw(res: ServerResponse, status: number, body: Buffer, headers: Record<string, string | number>, head: boolean): void {
  headers['content-length'] = body.length;
  res.writeHead(status, headers);
  res.end(head ? undefined : body);
}

export const MESSAGES = {
  ok: 'OK',
  authenticated: 'Authenticated',
  unauthorized: 'Unauthorized',
  forbidden: 'Forbidden',
  loggedIn: 'Logged in',
  loggedOut: 'Logged out',
  notFound: 'Not found',
  methodNotAllowed: 'Method not allowed',
  internal: 'Internal server error',
  unavailable: 'Service unavailable, try again later',
  tooLarge: 'Request body too large',
  malformedJson: 'Malformed JSON body',
  unsupportedMedia: 'Request body must be application/json',
  unsupportedEncoding: 'Request body must not be compressed: Content-Encoding is not supported',
  crossSiteLogout: 'Logout refused: cross-site request. Send it from this site, or as JSON (Content-Type: application/json)',
  redirecting: 'Redirecting to login',
  ambiguousPath: 'Ambiguous path',
} as const;

/** The answer to forwarded headers that name no single well-formed request, by problem. */
export const FORWARDED_PROBLEMS = {
  missing: 'Missing forwarded header',
  malformed: 'Malformed forwarded header',
  repeated: 'Repeated forwarded header',
} as const;
