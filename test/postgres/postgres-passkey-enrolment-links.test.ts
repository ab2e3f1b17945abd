import { PostgresPasskeyEnrolmentLinks } from '../../src/adapters/state/postgres/postgres-passkey-enrolment-links';
import { PostgresPasskeySecondFactorChoices } from '../../src/adapters/state/postgres/postgres-passkey-second-factor-choices';
import { passkeyEnrolmentLinksContract } from '../contract/ports/passkey-enrolment-links.contract';
import { passkeySecondFactorChoicesContract } from '../contract/ports/passkey-second-factor-choices.contract';
import { sharedPostgres } from './support/shared-postgres';

const pg = sharedPostgres('passkey_enrol');

passkeyEnrolmentLinksContract('PostgresPasskeyEnrolmentLinks', (env) => pg.perTest(env, (db) => new PostgresPasskeyEnrolmentLinks(db, env.clock)));
passkeySecondFactorChoicesContract('PostgresPasskeySecondFactorChoices', (env) => pg.perTest(env, (db) => new PostgresPasskeySecondFactorChoices(db)));
