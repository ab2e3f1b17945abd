import type { Clock } from '../../application/ports/clock';
import type { HandoffCodes, HandoffGrant } from '../../application/ports/handoff-codes';
import type { PostgresDatabase } from '../postgres/postgres-database';
import { PostgresSingleUseValues } from '../postgres/postgres-single-use-values';
import { parseHandoffGrant } from './handoff-grant-json';

/**
 * Hand-off codes in PostgreSQL (table `handoff_codes`, the grant as JSON), shared by every
 * replica, taken in one statement: exactly one of two concurrent redemptions (on any replicas)
 * gets the grant.
 */
export class PostgresHandoffCodes implements HandoffCodes {
  private readonly codes: PostgresSingleUseValues;

  constructor(database: PostgresDatabase, clock: Clock) {
    this.codes = new PostgresSingleUseValues(database, clock, 'handoff_codes', 'grant_json');
  }

  async put(code: string, grant: HandoffGrant, untilMs: number): Promise<void> {
    await this.codes.put(code, JSON.stringify(grant), untilMs);
  }

  async take(code: string): Promise<HandoffGrant | null> {
    const json = await this.codes.take(code);
    return json === null ? null : parseHandoffGrant(json);
  }
}
