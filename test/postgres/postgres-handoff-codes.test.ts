import { PostgresHandoffCodes } from '../../src/adapters/state/postgres/postgres-handoff-codes';
import { handoffCodesContract } from '../contract/ports/handoff-codes.contract';
import { FixedClock } from '../support/fakes';
import { sharedPostgres } from './support/shared-postgres';

const pg = sharedPostgres('handoff');

handoffCodesContract('PostgresHandoffCodes', (env) => pg.perTest(env, (db) => new PostgresHandoffCodes(db, env.clock)));

describe('PostgresHandoffCodes shared by two replicas', () => {
  it('redeems on one replica a code the other issued, once, however many replicas try at the same time', async () => {
    const clock = new FixedClock(Date.now());
    const [da, db] = [pg.open(clock), pg.open(clock)];
    await Promise.all([da.start(), db.start()]);
    try {
      const [a, b] = [new PostgresHandoffCodes(da, clock), new PostgresHandoffCodes(db, clock)];
      const grant = { domain: 'example.org', state: 's'.repeat(43), sealedSession: 'sealed', redirectTarget: 'https://app.example.org/' };
      await a.put('shared-code', grant, clock.now() + 30_000);
      const answers = await Promise.all([b.take('shared-code'), a.take('shared-code'), b.take('shared-code'), a.take('shared-code')]);
      expect(answers.filter((x) => x !== null)).toEqual([grant]);
    } finally {
      await Promise.all([da.close(), db.close()]);
    }
  });
});
