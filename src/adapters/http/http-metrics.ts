/** The proxies forward auth answers, by index: metrics keep one pre-bound counter per proxy and outcome. */
export const PROXY_NAMES = ['traefik', 'nginx', 'caddy', 'unknown'] as const;
export type ProxyIndex = 0 | 1 | 2 | 3;

/** What a forward-auth request ended as, by index (see FORWARD_AUTH_OUTCOMES). */
export const FORWARD_AUTH_OUTCOMES = ['allowed', 'unauthenticated', 'forbidden', 'bad_request', 'locked', 'unavailable', 'error'] as const;
export type ForwardAuthOutcome = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export const OUTCOME = { allowed: 0, unauthenticated: 1, forbidden: 2, badRequest: 3, locked: 4, unavailable: 5, error: 6 } as const;

/**
 * What the HTTP adapter reports for operators. The forward-auth call takes small integers, not
 * label objects, so the hot path allocates nothing for metrics.
 */
export interface HttpMetrics {
  forwardAuth(proxy: ProxyIndex, outcome: ForwardAuthOutcome, seconds: number): void;
  /** A login attempt's outcome by method (`password`, `totp`, `basic`, ...). */
  login(method: string, outcome: string): void;
  /** An API or UI request other than forward auth. */
  request(route: string, method: string, status: number, seconds: number): void;
}

export const NO_METRICS: HttpMetrics = {
  forwardAuth() {},
  login() {},
  request() {},
};
