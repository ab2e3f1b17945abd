import { randomBytes } from 'node:crypto';

/** Ids a client or proxy may hand us: short, printable, nothing that could forge a log line. */
const SANE = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

// Generated ids are a per-process random prefix and a counter: unique across replicas, and far
// cheaper per request than a random UUID.
const PREFIX = randomBytes(6).toString('hex');
let counter = 0;

/** The request's id: the incoming `X-Request-Id` when it is sane, else a fresh one. */
export function requestIdOf(incoming: string | string[] | undefined): string {
  if (typeof incoming === 'string' && SANE.test(incoming)) return incoming;
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${PREFIX}-${counter.toString(36)}`;
}

export const REQUEST_ID_HEADER = 'x-request-id';
