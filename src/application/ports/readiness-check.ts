/** A dependency that must answer before this gateway should receive traffic (Redis, LDAP, ...). */
export interface ReadinessCheck {
  /** A short, stable name for operators, e.g. `redis` or `ldap`. */
  readonly name: string;
  /**
   * Resolves when the dependency answers right now; rejects when it does not. Must give up
   * promptly when `signal` aborts (the caller aborts it after a short timeout). Never rejects
   * with a message that holds a secret.
   */
  check(signal: AbortSignal): Promise<void>;
}
