import type { Middleware } from 'koa';
import { lazyModule } from '../system/lazy-module';

// koa-body (with zod and formidable) is about 5 MB of heap: it is loaded by the first request that
// carries a body, not at start-up, so an idle gateway stays small (see docs/benchmark.md).
const koaBodyModule = lazyModule(() => require('koa-body') as typeof import('koa-body'));

/**
 * Parses a JSON request body into `ctx.request.body` with koa-body: JSON only (no forms, text or
 * multipart), strict (objects and arrays only). Over `limit` → an error with status 413, malformed
 * JSON → 400, an unsupported charset or encoding → 415 (the error middleware turns each into its
 * envelope).
 */
export function jsonBody(options: { readonly types: readonly string[]; readonly limit: string }): Middleware {
  let parser: Middleware | null = null;
  return (ctx, next) => {
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
    return parser(ctx, next);
  };
}
