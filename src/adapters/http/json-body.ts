import type { Context, Middleware } from 'koa';
import { lazyModule } from '../system/lazy-module';
import { UNSUPPORTED_MEDIA_TYPE } from './answers';
import { renderAnswer } from './koa-renderer';

// koa-body (with zod and formidable) is about 5 MB of heap: it is loaded by the first request that
// carries a body, not at start-up, so an idle gateway stays small (see docs/benchmark.md).
const koaBodyModule = lazyModule(() => require('koa-body') as typeof import('koa-body'));

/** Thrown before parsing when the body is encoded: the error envelope answers it 415. */
export class UnsupportedBodyEncodingError extends Error {
  readonly status = 415;
  readonly expose = true;
  constructor() {
    super('unsupported content encoding');
    this.name = 'UnsupportedBodyEncodingError';
  }
}

/** Thrown when the body cannot be read for a reason the parser did not classify (a broken stream, ...). */
class UnreadableBodyError extends Error {
  readonly status = 400;
  readonly expose = true;
}

/**
 * Parses a JSON request body into `ctx.request.body` with koa-body: JSON only (no forms, text or
 * multipart), strict (objects and arrays only). Over `limit` → an error with status 413, malformed
 * JSON → 400, an unsupported charset → 415 (the error middleware turns each into its envelope).
 *
 * Any `Content-Encoding` but `identity` is refused (415) before a byte is read: browsers never
 * compress request bodies, and a body that lies about its gzip or deflate encoding made zlib
 * throw an error without a status (a 500). Anything else the parser throws without a status is a
 * body it could not read: 400.
 */
export function jsonBody(options: { readonly types: readonly string[]; readonly limit: string }): Middleware {
  let parser: Middleware | null = null;
  return async (ctx, next) => {
    const encoding = ctx.get('Content-Encoding').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') throw new UnsupportedBodyEncodingError();
    parser ??= koaBodyModule().koaBody({
      json: true,
      urlencoded: false,
      text: false,
      multipart: false,
      jsonStrict: true,
      jsonLimit: options.limit,
      jsonTypes: [...options.types],
      encoding: 'utf-8',
    });
    let parsed = false;
    try {
      return await parser(ctx, () => {
        parsed = true;
        return next();
      });
    } catch (e) {
      if (parsed || typeof (e as { status?: unknown })?.status === 'number') throw e;
      throw new UnreadableBodyError('unreadable request body', { cause: e });
    }
  };
}

/** The body types the API reads; the check before parsing and the parser itself use this one list so they cannot disagree. */
export const JSON_TYPES = ['application/json', '+json'];

/** A route that takes JSON only: anything else is refused 415 before a byte is read, JSON goes to `parser`. */
export function jsonOnly(parser: Middleware): Middleware {
  return async (ctx, next) => {
    if (ctx.is(JSON_TYPES)) return parser(ctx, next);
    renderAnswer(ctx, UNSUPPORTED_MEDIA_TYPE);
  };
}

/** The parsed body's fields; anything but a JSON object reads as no fields (every field then fails its own check). */
export function jsonFieldsOf(ctx: Context): Record<string, unknown> {
  const raw = ctx.request.body as unknown;
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
}
