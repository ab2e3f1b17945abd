import type { AccessRulesSource } from '../../application/forward-auth/access-rules-source';
import type { AccessRules } from '../../domain/access-rules';

/**
 * Rules held in memory: what the gateway uses without a rules file, and what a host embedding
 * Portcullis uses to feed rules from elsewhere (call `replace` or `refuse` when they change).
 */
export class InMemoryAccessRulesSource implements AccessRulesSource {
  private loads = 1;
  private lastProblems: readonly string[] = [];

  constructor(private rules: AccessRules) {}

  current(): AccessRules {
    return this.rules;
  }

  version(): number {
    return this.loads;
  }

  problems(): readonly string[] {
    return this.lastProblems;
  }

  /** Puts new, already validated rules in force. */
  replace(rules: AccessRules): void {
    this.rules = rules;
    this.loads += 1;
    this.lastProblems = [];
  }

  /** Records a change that did not validate; the current rules stay in force. */
  refuse(problems: readonly string[]): void {
    this.lastProblems = [...problems];
  }

  close(): void {
    // Nothing to stop.
  }
}
