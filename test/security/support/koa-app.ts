import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';

/** What a prefix-routing upstream served, as it saw the request. */
export interface Served {
  readonly app: 'koa' | 'flask';
  readonly area: 'admin' | 'public';
  /** The path it routed on. */
  readonly path: string;
  /** The request target as it arrived. */
  readonly raw: string;
  readonly probe: string | null;
  readonly headers: Readonly<Record<string, string | null>>;
}

export const RECORDED_HEADERS = [
  'remote-user',
  'remote-name',
  'remote-email',
  'remote-groups',
  'authorization',
  'cookie',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-forwarded-uri',
  'x-original-url',
  'x-real-ip',
  'host',
] as const;

/**
 * A small Koa application that routes by path prefix with @koa/router (case-insensitive, on the
 * path as sent, as its defaults do): an admin area under /admin/ and a public one under /public/.
 * It remembers what it served under the request's X-Probe header.
 */
export async function startKoaApp(): Promise<{ port: number; served: Served[]; close(): Promise<void> }> {
  const served: Served[] = [];
  const app = new Koa();
  const router = new Router();
  const serve = (area: Served['area']) => (ctx: Context) => {
    const headers: Record<string, string | null> = {};
    for (const name of RECORDED_HEADERS) {
      const v = ctx.get(name);
      headers[name] = v === '' ? null : v;
    }
    const record: Served = { app: 'koa', area, path: ctx.path, raw: ctx.url, probe: ctx.get('x-probe') || null, headers };
    served.push(record);
    ctx.body = record;
  };
  router.all('/admin{/*rest}', serve('admin'));
  router.all('/public{/*rest}', serve('public'));
  app.use(router.routes());
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
