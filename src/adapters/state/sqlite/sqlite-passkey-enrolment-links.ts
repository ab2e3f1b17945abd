import type { Clock } from '../../../application/ports/clock';
import type { PasskeyEnrolmentLinks } from '../../../application/passkeys/passkey-enrolment-links';
import type { SqliteDatabase } from './sqlite-database';
import { SqliteSingleUseValues } from './sqlite-single-use-values';
import { TEXT_CODEC } from '../single-use-codec';

/**
 * Enrolment links in the embedded database (table `passkey_enrolment_links`, schema step 7), so a
 * link made by the CLI while the gateway was stopped works once it runs. Taken in one statement:
 * of two concurrent redemptions exactly one gets the account.
 */
export class SqlitePasskeyEnrolmentLinks extends SqliteSingleUseValues<string> implements PasskeyEnrolmentLinks {
  constructor(database: SqliteDatabase, clock: Clock) {
    super(database, clock, 'passkey_enrolment_links', 'username', TEXT_CODEC);
  }
}
