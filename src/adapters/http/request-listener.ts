import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { isForwardAuthPath, type ForwardAuthHandler } from './forward-auth';

/** What `http.createServer` takes; resolves when the answer has been handed over. */
export type GatewayRequestListener = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

/**
 * The server's request listener: forward-auth requests go straight to their handler, before Koa
 * creates a context and attaches its finish listeners for them (the hot path does not need
 * either); every other request goes to the Koa application.
 */
export function forwardAuthFirst(app: Koa, forwardAuth: ForwardAuthHandler): GatewayRequestListener {
  const koa = app.callback();
  return (req, res) => (isForwardAuthPath(req.url) ? forwardAuth(req, res) : koa(req, res));
}
