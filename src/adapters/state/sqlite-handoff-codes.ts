import type { Clock } from '../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../application/ports/handoff-codes';
import type { SqliteDatabase } from '../sqlite/sqlite-database';
import { SqliteSingleUseValues } from '../sqlite/sqlite-single-use-values';
import { parseHandoffGrant } from './handoff-grant-json';

/**
 * Hand-off codes in the embedded database (table `handoff_codes`, the grant as JSON), so a code
 * issued just before a restart still redeems after it. Taken in one statement: of two concurrent
 * redemptions exactly one gets the grant.
 */
export class SqliteHandoffCodes implements HandoffCodes {
  private readonly codes: SqliteSingleUseValues;

  constructor(database: SqliteDatabase, clock: Clock) {
    this.codes = new SqliteSingleUseValues(database, clock, 'handoff_codes', 'grant_json');
  }

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    await this.codes.put(code, JSON.stringify(grant), untilMs);
  }

  async take(code: string): Promise<HandoffGrant | null> {
    const json = await this.codes.take(code);
    return json === null ? null : parseHandoffGrant(json);
  }
}
