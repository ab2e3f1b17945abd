import type { AccessRules } from '../../domain/access-rules';

/**
 * Where the per-application access rules come from (a file, a database, a test). A source always
 * holds a complete, validated rule set: a change that does not validate is refused as a whole and
 * the last good rules stay in force.
 */
export interface AccessRulesSource {
  /** The rules in force now. Synchronous and cheap: called on every forward-auth request. Never throws. */
  current(): AccessRules;
  /** Counts successful loads, starting at 1 for the rules the source started with. */
  version(): number;
  /** Problems of the latest load attempt when it failed (the last good rules stay in force); empty after a success. */
  problems(): readonly string[];
  /** Stops watching for changes; current() keeps answering with the last good rules. Idempotent. */
  close(): void;
}
