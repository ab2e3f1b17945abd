import type { AccessDecision } from '../../domain/access-decision';
import type { OriginalRequest } from '../../domain/forwarded-request';
import type { Identity } from '../../domain/session';

export type { AccessDecision, DenyReason } from '../../domain/access-decision';

/** A request a proxy asks about, with whoever the gateway found behind it. */
export interface AccessRequest {
  /** The original request, or null when the proxy sent no forwarded headers at all. */
  readonly original: OriginalRequest | null;
  /** The proven caller, or null when anonymous. */
  readonly identity: Identity | null;
  /** The client's address as text; anything that is not an IPv4/IPv6 address (e.g. `unknown`) must be denied by rules on addresses. */
  readonly ip: string;
}

/** Decides who may reach which protected application. Must fail closed: when unsure, deny. */
export interface AccessPolicy {
  /**
   * Decides for one request, synchronously (it runs on the forward-auth hot path). Throws only on
   * an internal fault, which the caller answers with a 500, never with an allow.
   */
  decide(request: AccessRequest): AccessDecision;
}
