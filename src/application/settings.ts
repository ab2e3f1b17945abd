import type { ProtectedDomain } from '../domain/cookie-domain';
import type { LockPolicy } from '../domain/login-failures';

/** What the use cases need to know of the configuration, already validated. */
export interface GatewaySettings {
  readonly sessionLifetimeMs: number;
  readonly lock: LockPolicy;
  readonly protectedDomain: ProtectedDomain;
  /** How long a verified HTTP Basic header is trusted without another bcrypt; 0 disables the cache. */
  readonly basicCacheTtlMs: number;
}
