import type { AccessDecision, AccessPolicy, AccessRequest } from './access-policy';

const ALLOW: AccessDecision = { kind: 'allow' };
const LOGIN: AccessDecision = { kind: 'login_required' };
// Without a rules file there are no applications to name: a token scoped to some opens none.
const OUT_OF_SCOPE: AccessDecision = { kind: 'deny', reason: 'token_scope' };

/** The policy without access rules: every logged-in person passes every application. */
export class AllowAuthenticatedPolicy implements AccessPolicy {
  decide(request: AccessRequest): AccessDecision {
    if (request.identity === null) return LOGIN;
    return request.identity.token !== undefined && request.identity.token.apps !== null ? OUT_OF_SCOPE : ALLOW;
  }
}
