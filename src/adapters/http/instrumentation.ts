import type { Logger } from '../system/logger';
import { requestIdOf } from './request-id';

/** How one stack (the raw forward-auth path, Koa) plugs into the shared instrumentation. */
export interface InstrumentationHooks<T> {
  /** The log line of an unexpected failure, e.g. `forward auth failed`. */
  readonly failure: string;
  /** Extra fields for that line (never the query string, never a header value). */
  logFields?(target: T): Record<string, unknown>;
  /** Writes the fixed 500 answer; may throw, then `abort` runs. */
  internalError(target: T, requestId: string): void;
  /** Last resort when even the 500 cannot be written (headers already sent, a broken socket). */
  abort(target: T): void;
  /** Called once per request, after the answer, with its duration: metrics and the request log. */
  finished(target: T, requestId: string, seconds: number): void;
}

/**
 * The one instrumentation wrapper both stacks use: it gives the request its id (the incoming
 * `X-Request-Id` when sane), times it, reports it through `finished`, and turns anything thrown
 * into the fixed 500 answer. The log line names the error's class only, never `err.message` (it
 * may hold a path, a header or a secret), and the 500 says nothing either. Never throws, never
 * rejects. Work that finishes at once (forward auth answered from memory) is reported at once:
 * no promise is made for it (see Awaitable in the application's ports).
 */
export function instrumentation<T>(logger: Logger, hooks: InstrumentationHooks<T>) {
  const fail = (target: T, requestId: string, e: unknown): void => {
    try {
      logger.error(hooks.failure, { requestId, ...hooks.logFields?.(target), error: e instanceof Error ? e.name : 'unknown' });
      hooks.internalError(target, requestId);
    } catch {
      hooks.abort(target);
    }
  };
  return function instrumented(
    target: T,
    incomingId: string | string[] | undefined,
    work: (target: T, requestId: string) => Promise<void> | void,
  ): Promise<void> | void {
    const started = performance.now();
    const requestId = requestIdOf(incomingId);
    let pending: Promise<void> | void = undefined;
    try {
      pending = work(target, requestId);
    } catch (e) {
      fail(target, requestId, e);
    }
    if (pending instanceof Promise) {
      return pending.then(
        () => hooks.finished(target, requestId, (performance.now() - started) / 1000),
        (e: unknown) => {
          fail(target, requestId, e);
          hooks.finished(target, requestId, (performance.now() - started) / 1000);
        },
      );
    }
    hooks.finished(target, requestId, (performance.now() - started) / 1000);
  };
}
