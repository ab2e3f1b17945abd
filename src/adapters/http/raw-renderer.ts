import type { ServerResponse } from 'node:http';
import { API_HEADERS, bodyOf, type Answer } from './answer';
import { REQUEST_ID_HEADER } from './request-id';

/**
 * Writes an answer straight to the Node response, for the paths where Koa's response machinery is
 * too slow (forward auth) or absent (the listeners' 404). Fixed answers carry their body already
 * serialised, so the hot path only copies a few headers.
 */
export function writeAnswer(res: ServerResponse, answer: Answer, requestId: string, head: boolean): void {
  const body = bodyOf(answer);
  // A literal in API_HEADERS' order, not a spread of it: this runs for every forward-auth answer.
  // Without a body there is no content to type (a minimal answer, see prefer.ts).
  const out: Record<string, string | number | string[]> =
    body.length > 0
      ? {
          'content-type': API_HEADERS['content-type'],
          'cache-control': API_HEADERS['cache-control'],
          'x-content-type-options': API_HEADERS['x-content-type-options'],
          [REQUEST_ID_HEADER]: requestId,
        }
      : { 'cache-control': API_HEADERS['cache-control'], [REQUEST_ID_HEADER]: requestId };
  const headers = answer.headers;
  if (headers !== undefined) for (let i = 0; i < headers.length; i += 1) out[headers[i][0]] = headers[i][1];
  if (answer.cookies !== undefined && answer.cookies.length > 0) out['set-cookie'] = [...answer.cookies];
  out['content-length'] = body.length;
  res.writeHead(answer.status, out);
  res.end(head ? undefined : body);
}
