import type { IncomingHttpHeaders } from 'node:http';
import { isBasicAuthorization } from '../../domain/basic-credentials';

/**
 * API mode (never a redirect, never HTML) when the client sends HTTP Basic or does not accept
 * HTML; otherwise browser mode.
 */
export function isApiMode(headers: IncomingHttpHeaders): boolean {
  if (isBasicAuthorization(headers.authorization)) return true;
  const accept = headers.accept;
  return accept === undefined || !accept.toLowerCase().includes('text/html');
}
