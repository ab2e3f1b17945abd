/** Paths of the hand-off between gateway domains (issue 17), shared by forward auth and the routes. */
export const HANDOFF_START_PATH = '/api/handoff/start';
export const HANDOFF_ISSUE_PATH = '/api/handoff/issue';
export const HANDOFF_REDEEM_PATH = '/api/handoff/redeem';
/** Host-only cookie on a secondary holding the hand-off's browser-binding state. */
export const HANDOFF_STATE_COOKIE = 'portcullis-handoff';
