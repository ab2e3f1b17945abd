import type { OAuthProviders } from '../../application/ports/oauth-providers';
import type { Logger } from '../system/logger';
import type { CookieSettings } from './cookies';
import type { HttpMetrics } from './http-metrics';
import type { ClientAddressResolver } from './client-address';
import type { AppContext } from './app-context';

/** One gateway URL of APP_URL and its cookie domain. */
export interface GatewayHostSettings {
  readonly url: string;
  readonly cookies: CookieSettings;
}

export interface HttpSettings {
  /** Public URL of the gateway, without a trailing slash. */
  readonly appUrl: string;
  readonly cookies: CookieSettings;
  /**
   * Issue 17: every gateway URL of APP_URL, primary first, each with the cookie settings of its own
   * domain. Absent (or one element): one domain, `appUrl` and `cookies` alone.
   */
  readonly gateways?: readonly GatewayHostSettings[];
  readonly app: AppContext;
  readonly clientAddress: ClientAddressResolver;
  readonly providers: OAuthProviders;
  readonly logger: Logger;
  /** Counters and histograms for operators; NO_METRICS when METRICS_PORT is off. */
  readonly metrics?: HttpMetrics;
  /**
   * Issue 32: the `iss` of every configured JWT issuer. A forward-auth request with
   * `Authorization: Bearer <jwt>` naming one of them presents a workload JWT; none: no Bearer
   * value is ever read as one.
   */
  readonly jwtIssuers?: readonly string[];
  /** Issue 35: the origins of the apps' front-channel logout pages, which the UI's pages may frame. */
  readonly frameOrigins?: readonly string[];
  /** Directory of the built UI, or null to serve the built-in fallback pages. */
  readonly uiDirectory?: string | null;
  /** ADMIN_GROUPS (issue 36): with any, `/admin` is a page and the account page shows its members the way there. */
  readonly adminGroups?: readonly string[];
}
