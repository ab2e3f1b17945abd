/** Paths of the hand-off between gateway domains (issue 17), shared by forward auth and the routes. */
export const HANDOFF_START_PATH = '/api/handoff/start';
export const HANDOFF_ISSUE_PATH = '/api/handoff/issue';
export const HANDOFF_REDEEM_PATH = '/api/handoff/redeem';
/**
 * Host-only cookie on a secondary holding the hand-off's browser-binding state. `__Host-` (which
 * browsers accept only with Secure, `Path=/` and no Domain): no other host of the secondary's
 * domain can set or overwrite it. Without TLS (a local trial) browsers refuse the prefix, so the
 * cookie is named without it there.
 */
export function handoffStateCookie(secure: boolean): string {
  return secure ? '__Host-portcullis-handoff' : 'portcullis-handoff';
}
