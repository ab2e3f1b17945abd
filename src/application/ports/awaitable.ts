/**
 * What a port answers: at once when the adapter holds the answer in this process's memory (the
 * users of `USERS` or a users file, the revocations and locks of the in-memory and SQLite
 * stores), or as a promise when it must ask something else (LDAP, Redis, PostgreSQL).
 *
 * Why not always a promise: forward auth asks these ports on every request, and every promise,
 * `await` and async frame on that path costs the gateway measurable throughput (docs/benchmark.md,
 * change 16; ADR 0023). Callers that can wait just `await` the value; the forward-auth path checks
 * `isPending` and stays synchronous from request to answer when nothing is pending.
 */
export type Awaitable<T> = T | Promise<T>;

/** True when the answer is still to come. Adapters answer later with native promises (async functions). */
export function isPending<T>(value: Awaitable<T>): value is Promise<T> {
  return value instanceof Promise;
}
