import * as nodePostgres from 'pg';
import { AesGcmTotpSecretSealer } from '../../src/adapters/crypto/aes-gcm-totp-secret-sealer';
import { PostgresDatabase } from '../../src/adapters/state/postgres/postgres-database';
import { PostgresEnrolledTotpSecrets } from '../../src/adapters/state/postgres/postgres-enrolled-totp-secrets';
import { StateStoreUnavailableError } from '../../src/application/ports/state-store-unavailable';
import { enrolledTotpSecretsContract, untilLoaded } from '../contract/ports/enrolled-totp-secrets.contract';
import { basic, hashOf, TEST_SECRET } from '../support/credentials';
import { askForwardAuth, expectEnvelope, forwardedFor, loginCookie, postJson } from '../support/http';
import { startReplicas } from '../support/replicas';
import { enrolTotp } from '../support/totp-enrolment';
import { FixedClock } from '../support/fakes';
import { silentLogger } from '../support/loggers';
import { eventually } from '../support/wait';
import { sharedPostgres } from './support/shared-postgres';

const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const sealer = new AesGcmTotpSecretSealer(TEST_SECRET);
const clock = new FixedClock(1_760_000_000_000);

const opened: PostgresDatabase[] = [];
// Declared before the server's own: Jest runs afterAll hooks in order, so these close before it stops.
afterAll(() => Promise.all(opened.map((d) => d.close())));
const pg = sharedPostgres('enrolled_totp');

/** A replica: its own database object (pool and listener) on the shared database, started after the adapter registered its mirror. */
async function replica(): Promise<PostgresEnrolledTotpSecrets> {
  const database = pg.open(clock);
  opened.push(database);
  const store = new PostgresEnrolledTotpSecrets(database, sealer, () => clock.now());
  await database.start();
  return store;
}

enrolledTotpSecretsContract('PostgresEnrolledTotpSecrets', async () => untilLoaded(await replica()));

describe('PostgresEnrolledTotpSecrets across replicas', () => {
  it('fails closed before its first load', () => {
    const database = new PostgresDatabase({ pg: nodePostgres, target: { url: pg.url, ssl: null, ca: null }, logger: silentLogger, clock });
    opened.push(database);
    const store = new PostgresEnrolledTotpSecrets(database, sealer, () => clock.now());
    expect(() => store.secretOf('alice')).toThrow(StateStoreUnavailableError);
  });

  it('an enrolment or a removal on one replica reaches the other by NOTIFY; a replica started later loads it; the row is sealed', async () => {
    const a = await untilLoaded(await replica());
    const b = await untilLoaded(await replica());
    expect(await a.enrol('pg-alice', SECRET)).toBe(true);
    expect(await eventually(async () => b.secretOf('pg-alice') === SECRET)).toBe(true);
    const later = await untilLoaded(await replica());
    expect(later.secretOf('pg-alice')).toBe(SECRET);
    const rows = await opened[0].query<{ sealed: string }>('SELECT sealed FROM enrolled_totp_secrets WHERE username = $1', ['pg-alice']);
    expect(rows[0].sealed).not.toContain(SECRET);
    expect(await b.remove('pg-alice', SECRET)).toBe(true);
    expect(await eventually(async () => a.secretOf('pg-alice') === null && later.secretOf('pg-alice') === null)).toBe(true);
  });
});

/** The whole path on two in-process gateways sharing one PostgreSQL database. */
describe('self-enrolled TOTP on two replicas sharing PostgreSQL', () => {
  it('after a set-up on replica A, replica B asks for the code at the password login and refuses HTTP Basic', async () => {
    const env = { USERS: `alice:${hashOf('alice-pw')}`, DATABASE_URL: pg.server.createDatabase('enrolled_totp_gateways') };
    const [a, b] = await startReplicas(env);
    try {
      const basicOnB = (): Promise<Response> =>
        askForwardAuth(b, 'traefik', { authorization: basic('alice', 'alice-pw'), ...forwardedFor('https://app.example.test/') });
      expect((await basicOnB()).status).toBe(200);
      await enrolTotp(a, await loginCookie(a, 'alice', 'alice-pw'), 'alice-pw');
      expect(await eventually(async () => (await basicOnB()).status === 401)).toBe(true);
      expect(await expectEnvelope(await postJson(b, '/api/login', { email: 'alice', password: 'alice-pw' }), 200)).toMatchObject({ totpPending: 'true' });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
