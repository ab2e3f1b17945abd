import type { IncomingHttpHeaders } from 'node:http';
import { header } from './header-access';

/**
 * Whether a state-changing request may come from the gateway's own pages, i.e. carries no
 * positive evidence of coming from another site (CSRF). Only what a browser says is evidence:
 * `Sec-Fetch-Site: cross-site` or `same-site` (a sibling app on the cookie's domain is another
 * site for this purpose), or an `Origin` other than the gateway's own (`appOrigin`, from APP_URL;
 * `null` included). `same-origin` and `none` (typed or bookmarked) pass. A request with neither
 * header passes too: browsers that send cookies across sites send at least one of them on a POST,
 * so their absence means curl, a script or another non-browser client, which no other site drives.
 */
export function isFromThisSite(headers: IncomingHttpHeaders, appOrigin: string): boolean {
  const site = header(headers, 'sec-fetch-site')?.trim().toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = header(headers, 'origin')?.trim().toLowerCase();
  return origin === undefined || origin === appOrigin.toLowerCase();
}
