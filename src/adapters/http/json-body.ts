import type { Middleware } from 'koa';
import coBody = require('co-body');

declare module 'koa' {
  interface Request {
    /** The parsed JSON body, set by `jsonBody` on the routes that read one. */
    body?: unknown;
  }
}

const PARSED_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * Parses a JSON request body into `ctx.request.body` with co-body, the parser koa-body uses for
 * JSON, called directly: koa-body also loads zod and formidable, about 5 MB of idle heap for
 * features the API never uses. Only objects and arrays are accepted (strict); over `limit` →
 * an error with status 413, malformed JSON → 400, an unsupported charset or encoding → 415 (the
 * error middleware turns each into its envelope).
 */
export function jsonBody(options: { readonly types: readonly string[]; readonly limit: string }): Middleware {
  const types = [...options.types];
  return async (ctx, next) => {
    if (PARSED_METHODS.has(ctx.method) && ctx.is(types)) {
      ctx.request.body = await coBody.json(ctx, { encoding: 'utf-8', limit: options.limit, strict: true });
    }
    return next();
  };
}
