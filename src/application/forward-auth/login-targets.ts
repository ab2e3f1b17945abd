import type { OriginalRequest } from '../../domain/forwarded-request';
import { gatewayIndexOfHost } from '../../domain/gateway-domains';
import { safeRedirectTarget } from '../../domain/redirect-target';
import type { GatewaySettings } from '../settings';

/**
 * A request refused for want of a login. `returnTo` is the original URL when it is safe to send
 * the person back there after login; `secondary` (issue 17) is set when the application lies inside
 * a secondary gateway's domain (its index in `secondaryDomains`): the login goes through that
 * domain's hand-off.
 */
export interface LoginRequired {
  readonly code: 'unauthenticated';
  readonly returnTo: string | null;
  readonly secondary?: number;
}

/**
 * Where a request without a login is sent to log in, and back to afterwards. A function of the
 * original URL (its host included) and the configured domains alone: an adapter may remember its
 * answers per URL (see `src/adapters/http/login-target-memo.ts`), and the use case stays free of
 * any memo.
 */
export interface LoginTargets {
  of(original: OriginalRequest): LoginRequired;
}

/** Back to the original URL when it is inside the primary's domain, or inside a secondary's (via its hand-off). */
export function loginTargetsOf(settings: Pick<GatewaySettings, 'protectedDomain' | 'secondaryDomains'>): LoginTargets {
  const { protectedDomain, secondaryDomains: secondaries } = settings;
  return {
    of(original) {
      const returnTo = safeRedirectTarget(original.url, protectedDomain);
      if (returnTo !== null || secondaries === undefined || secondaries.length === 0) return { code: 'unauthenticated', returnTo };
      // Each domain's own check: a target is only ever handed to the domain that contains it.
      const secondary = gatewayIndexOfHost(secondaries, original.hostname);
      const target = secondary === -1 ? null : safeRedirectTarget(original.url, secondaries[secondary]);
      return target === null ? { code: 'unauthenticated', returnTo: null } : { code: 'unauthenticated', returnTo: target, secondary };
    },
  };
}
