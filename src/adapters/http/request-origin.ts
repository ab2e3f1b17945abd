import type { IncomingHttpHeaders } from 'node:http';
import { header } from './header-access';

/**
 * Whether a state-changing request comes from the gateway's own pages and not from another
 * site's form (CSRF). Browsers that send `Sec-Fetch-Site` are believed: only `same-origin` and
 * `none` (typed or bookmarked) pass; `same-site` does not, since a sibling app on the cookie's
 * domain is another site for this purpose. Without it, a JSON body passes (a cross-site page
 * cannot send one: the type is not CORS-safelisted, and the gateway grants no preflight), and so
 * does an `Origin` equal to the gateway's own (`appOrigin`, from APP_URL).
 */
export function isFromThisSite(headers: IncomingHttpHeaders, appOrigin: string, hasJsonBody: boolean): boolean {
  const site = header(headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (site !== undefined) return site === 'same-origin' || site === 'none';
  if (hasJsonBody) return true;
  const origin = header(headers, 'origin')?.trim().toLowerCase();
  return origin !== undefined && origin === appOrigin.toLowerCase();
}
