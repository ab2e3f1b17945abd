/** A dependency that must answer before this gateway should receive traffic (Redis, LDAP, ...). */
export interface ReadinessCheck {
  /** A short, stable name for operators, e.g. `redis` or `ldap`. */
  readonly name: string;
  /**
   * True when this replica cannot answer forward auth while the check fails (the gateway draining,
   * the shared revocations not loaded yet): a load balancer must then send traffic elsewhere.
   * Unset for a shared store (Redis, PostgreSQL, LDAP, ...) whose outage only degrades logins and
   * Basic credentials: every replica shares it, so taking replicas out of the balancer would turn a
   * partial outage into a total one.
   */
  readonly gatesForwardAuth?: boolean;
  /**
   * Resolves when the dependency answers right now; rejects when it does not. Must give up
   * promptly when `signal` aborts (the caller aborts it after a short timeout). Never rejects
   * with a message that holds a secret.
   */
  check(signal: AbortSignal): Promise<void>;
}
