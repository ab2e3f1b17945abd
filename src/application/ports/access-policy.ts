import type { OriginalRequest } from '../../domain/forwarded-request';
import type { Identity } from '../../domain/session';

/** A request a proxy asks about, with whoever the gateway found behind it. */
export interface AccessRequest {
  /** The original request, or null when the proxy sent no forwarded headers at all. */
  readonly original: OriginalRequest | null;
  /** The proven caller, or null when anonymous. */
  readonly identity: Identity | null;
  readonly ip: string;
}

export type AccessDecision =
  | { readonly kind: 'allow'; readonly headers?: Readonly<Record<string, string>> }
  | { readonly kind: 'login_required' }
  | { readonly kind: 'deny'; readonly reason: string; readonly app?: string };

/** Decides who may reach which protected application. Must fail closed: when unsure, deny. */
export interface AccessPolicy {
  /** Decides for one request; throws only on an internal fault (the caller then denies). */
  decide(request: AccessRequest): AccessDecision;
}
