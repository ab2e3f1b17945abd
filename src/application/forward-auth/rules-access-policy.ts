import { evaluateAccess } from '../../domain/access-evaluation';
import type { AccessDecision } from '../../domain/access-decision';
import type { AccessPolicy, AccessRequest } from './access-policy';
import type { AccessRulesSource } from './access-rules-source';
import type { Clock } from '../ports/clock';

const UNAVAILABLE: AccessDecision = Object.freeze({ kind: 'deny', reason: 'rules_unavailable' });

/**
 * The access policy of a rules file: evaluates the source's current rules, which arrive compiled
 * (no regex or YAML work per request). Fails closed: if evaluation throws, the request is denied
 * and the fault reported through `onFault` (never with request details that could hold secrets).
 */
export class RulesAccessPolicy implements AccessPolicy {
  constructor(
    private readonly source: AccessRulesSource,
    /** The time per-path requirements' `max_age` is measured at (issue 33). */
    private readonly clock: Clock,
    private readonly onFault: (error: unknown) => void = () => undefined,
  ) {}

  decide(request: AccessRequest): AccessDecision {
    try {
      return evaluateAccess(this.source.current(), request.original, request.identity, request.ip, this.clock.now());
    } catch (e) {
      try {
        this.onFault(e);
      } catch {
        // Reporting must not turn a denial into a fault.
      }
      return UNAVAILABLE;
    }
  }
}
