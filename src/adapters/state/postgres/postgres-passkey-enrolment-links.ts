import type { Clock } from '../../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../../application/passkeys/passkey-enrolment-links';
import type { PostgresDatabase } from './postgres-database';
import { PostgresSingleUseValues } from './postgres-single-use-values';
import { TEXT_CODEC } from '../single-use-codec';

/**
 * Enrolment links in PostgreSQL (table `passkey_enrolment_links`), shared by every replica, taken
 * in one statement: exactly one of two concurrent redemptions (on any replicas) gets the account.
 */
export class PostgresPasskeyEnrolmentLinks extends PostgresSingleUseValues<string> implements PasskeyEnrolmentLinks {
  constructor(database: PostgresDatabase, clock: Clock) {
    super(database, clock, 'passkey_enrolment_links', 'username', TEXT_CODEC);
  }
}
