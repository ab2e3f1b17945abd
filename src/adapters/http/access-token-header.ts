import type { IncomingHttpHeaders } from 'node:http';
import { TOKEN_PREFIX } from '../../domain/access-token';

/** The header for apps that need `Authorization` themselves (issue 32). */
export const TOKEN_HEADER = 'portcullis-token';

/** What stands for a token that cannot be one (both headers, a repeated header): refused like a malformed token. */
const CONTRADICTORY = '';

const BEARER = /^bearer[ \t]+/i;

/**
 * The access token a request presents, as it came, or undefined when it presents none:
 * `Portcullis-Token: <token>`, or `Authorization: Bearer pct_…` (another Bearer token is the
 * application's own and is none of ours). Two of them, or a repeated header (Node joins it with
 * ", "), are contradictory: the request presents a token that never passes, not one of the two.
 */
export function presentedAccessToken(headers: IncomingHttpHeaders, authorization: string | undefined): string | undefined {
  const own = headers[TOKEN_HEADER];
  const fromHeader = own === undefined ? undefined : Array.isArray(own) ? CONTRADICTORY : own.trim();
  let fromAuthorization: string | undefined;
  if (authorization !== undefined && BEARER.test(authorization)) {
    const value = authorization.replace(BEARER, '').trim();
    if (value.startsWith(TOKEN_PREFIX)) fromAuthorization = value;
  }
  if (fromHeader !== undefined && fromAuthorization !== undefined) return CONTRADICTORY;
  return fromHeader ?? fromAuthorization;
}
