import bcrypt from 'bcrypt';
import { startGateway, type RunningGateway } from '../../support/server';
import { askForwardAuth, forwardedFor, loginCookie, postJson } from '../../support/http';

const FLOOD = 40;

/**
 * bcrypt runs on libuv's thread pool, so a flood of password checks must not hold up the event
 * loop that answers forward auth for people who are already logged in. Checked by ordering, not
 * by a time limit: forward-auth answers must keep arriving while the flood is still unanswered.
 */
describe('GET /api/auth/:proxy during a login flood', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    // Real cost-10 hashes; the lock is off so that every one of the flood's requests costs a bcrypt comparison.
    gw = await startGateway({ USERS: `alice:${bcrypt.hashSync('alice-pw', 10)},bob:${bcrypt.hashSync('bob-pw', 10)}`, LOGIN_MAX_RETRIES: '0' });
  }, 30_000);
  afterAll(() => gw.close());

  it('keeps answering a logged-in user while 40 concurrent wrong-password logins are still in progress', async () => {
    const cookie = await loginCookie(gw, 'alice', 'alice-pw');
    const ask = () => askForwardAuth(gw, 'traefik', { cookie, ...forwardedFor('https://app.example.test/') });
    expect((await ask()).status).toBe(200); // warm connection and session cache

    let answered = 0;
    const floodStart = performance.now();
    const flood = Array.from({ length: FLOOD }, (_, i) =>
      postJson(gw, '/api/login', { email: i % 2 === 0 ? 'bob' : 'nobody', password: `wrong-${i}` }).then(async (res) => {
        await res.arrayBuffer();
        answered += 1;
        return res.status;
      }),
    );

    const latencies: number[] = [];
    const answeredWhenDone: number[] = [];
    while (answered < FLOOD) {
      const t = performance.now();
      const res = await ask();
      await res.arrayBuffer();
      latencies.push(performance.now() - t);
      answeredWhenDone.push(answered);
      expect(res.status).toBe(200);
    }
    const statuses = await Promise.all(flood);
    const floodMs = performance.now() - floodStart;

    expect(statuses).toEqual(Array(FLOOD).fill(401));
    // Forward-auth answers kept arriving while flooded logins were still unanswered, and more of them than
    // there were logins: none waited for a password check (a blocking bcrypt would allow about one per login).
    const midFlood = answeredWhenDone.filter((n) => n < FLOOD).length;
    expect(answeredWhenDone[0]).toBeLessThan(FLOOD);
    expect(midFlood).toBeGreaterThan(FLOOD);

    if (process.env.PORTCULLIS_REPORT_FLOOD !== undefined) {
      const sorted = [...latencies].sort((a, b) => a - b);
      const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1);
      process.stdout.write(
        `login flood: ${FLOOD} logins in ${floodMs.toFixed(0)} ms; ${latencies.length} forward-auth answers meanwhile ` +
          `(${midFlood} before the flood ended), latency ms p50 ${pick(0.5)} p90 ${pick(0.9)} max ${pick(1)}; ` +
          `flood answered before the first: ${answeredWhenDone[0]}\n`,
      );
    }
  }, 120_000); // 40 cost-10 bcrypt comparisons on a busy two-core machine can take many seconds
});
