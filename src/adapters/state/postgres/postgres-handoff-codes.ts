import type { Clock } from '../../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../../application/handoff/handoff-codes';
import type { PostgresDatabase } from './postgres-database';
import { PostgresSingleUseValues } from './postgres-single-use-values';
import { HANDOFF_GRANT_CODEC } from '../handoff-grant-json';

/**
 * Hand-off codes in PostgreSQL (table `handoff_codes`, the grant as JSON), shared by every
 * replica, taken in one statement: exactly one of two concurrent redemptions (on any replicas)
 * gets the grant.
 */
export class PostgresHandoffCodes extends PostgresSingleUseValues<HandoffGrant> implements HandoffCodes {
  constructor(database: PostgresDatabase, clock: Clock) {
    super(database, clock, 'handoff_codes', 'grant_json', HANDOFF_GRANT_CODEC);
  }
}
