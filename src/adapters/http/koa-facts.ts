import type { Context } from 'koa';
import type { ClientAddressResolver } from './client-address';
import { requestIdOf } from './request-id';
import { readRequestFacts, type RequestFacts } from './request-facts';

/** The facts of a request Koa serves, under the id the instrumentation gave it. */
export function koaFacts(ctx: Context, resolver: ClientAddressResolver): RequestFacts {
  const given = (ctx.state as { requestId?: string }).requestId;
  return readRequestFacts(ctx.req, given ?? requestIdOf(undefined), resolver);
}
