import type { AccessDecision, AccessPolicy, AccessRequest } from './access-policy';

const ALLOW: AccessDecision = { kind: 'allow' };
const LOGIN: AccessDecision = { kind: 'login_required' };

/** The policy without access rules: every logged-in person passes every application. */
export class AllowAuthenticatedPolicy implements AccessPolicy {
  decide(request: AccessRequest): AccessDecision {
    return request.identity === null ? LOGIN : ALLOW;
  }
}
