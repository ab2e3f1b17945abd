import type { DestinationStream } from 'pino';
import { lazyModule } from '../adapters/system/lazy-module';

/**
 * The libraries of optional features, loaded in this one place and only when the feature is
 * configured: a gateway without metrics, Redis, PostgreSQL or a terminal does not carry prom-client, ioredis,
 * pg or pino-pretty in its idle memory (see docs/benchmark.md). Composition hands each module to the
 * adapter that uses it, typed with `typeof import(...)`, so the adapter neither requires nor knows
 * when it is loaded. Each loader loads once.
 */
export const optionalModules = {
  promClient: lazyModule(() => require('prom-client') as typeof import('prom-client')),
  ioredis: lazyModule(() => require('ioredis') as typeof import('ioredis')),
  pg: lazyModule(() => require('pg') as typeof import('pg')),
  /** pino-pretty is an optional dependency: null when it is not installed. */
  pinoPretty: lazyModule((): ((options: Record<string, unknown>) => DestinationStream) | null => {
    try {
      return require('pino-pretty') as (options: Record<string, unknown>) => DestinationStream;
    } catch {
      return null;
    }
  }),
};

/** Log lines for a person at a terminal: prettified when stdout is one and pino-pretty is installed; otherwise undefined (JSON lines). */
export function terminalLogStream(): DestinationStream | undefined {
  if (!process.stdout.isTTY) return undefined;
  return optionalModules.pinoPretty()?.({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
}
