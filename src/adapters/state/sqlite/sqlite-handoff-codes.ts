import type { Clock } from '../../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../../application/handoff/handoff-codes';
import type { SqliteDatabase } from './sqlite-database';
import { SqliteSingleUseValues } from './sqlite-single-use-values';
import { HANDOFF_GRANT_CODEC } from '../handoff-grant-json';

/**
 * Hand-off codes in the embedded database (table `handoff_codes`, the grant as JSON), so a code
 * issued just before a restart still redeems after it. Taken in one statement: of two concurrent
 * redemptions exactly one gets the grant.
 */
export class SqliteHandoffCodes extends SqliteSingleUseValues<HandoffGrant> implements HandoffCodes {
  constructor(database: SqliteDatabase, clock: Clock) {
    super(database, clock, 'handoff_codes', 'grant_json', HANDOFF_GRANT_CODEC);
  }
}
