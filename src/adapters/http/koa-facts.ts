import type { Context } from 'koa';
import type { ClientAddressResolver } from './client-address';
import { requestIdOf } from './request-id';
import { readRequestFacts, type RequestFacts } from './request-facts';

/** The facts of a request Koa serves, under the id the instrumentation gave it. */
export function koaFacts(ctx: Context, resolver: ClientAddressResolver): RequestFacts {
  const given = (ctx.state as { requestId?: string }).requestId;
  return readRequestFacts(ctx.req, given ?? requestIdOf(undefined), resolver);
}

/** Who asks, as the account, passkey and TOTP use cases take it: the session cookie, the client's address, the request id. */
export interface Caller {
  readonly sessionToken: string | undefined;
  readonly ip: string;
  readonly requestId: string;
}

/** The caller of a request Koa serves (see koaFacts). */
export function callerOf(ctx: Context, resolver: ClientAddressResolver): Caller {
  const { sessionToken, ip, requestId } = koaFacts(ctx, resolver);
  return { sessionToken, ip, requestId };
}

/** The User-Agent of a login request, for the session index (display only). */
export function userAgentOf(ctx: Context): string | undefined {
  const ua = ctx.req.headers['user-agent'];
  return typeof ua === 'string' ? ua : undefined;
}

/** One query parameter as a single string; repeated or absent parameters read as absent. */
export function queryParam(ctx: Context, name: string): string | undefined {
  const v = ctx.query[name];
  return typeof v === 'string' ? v : undefined;
}
