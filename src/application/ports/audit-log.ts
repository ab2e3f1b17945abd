/** Ties an event to the request that caused it (the HTTP adapter's request id), when there was one. */
export interface AuditContext {
  readonly requestId?: string;
}

/** What happened, for operators: logins, logouts, locks and denials. Never carries a secret. */
export type AuditEvent = AuditContext & (
  | { readonly event: 'login_succeeded'; readonly username: string; readonly method: string; readonly ip: string }
  | { readonly event: 'login_failed'; readonly login: string; readonly method: string; readonly ip: string; readonly reason: string }
  | { readonly event: 'login_locked'; readonly login: string; readonly ip: string; readonly retryAfter: number }
  | { readonly event: 'logout'; readonly username: string }
  | { readonly event: 'logout_refused'; readonly ip: string; readonly reason: string }
  | { readonly event: 'access_denied'; readonly username: string; readonly host: string; readonly reason: string });

export interface AuditLog {
  /** Records an event; must not throw. */
  record(event: AuditEvent): void;
}
