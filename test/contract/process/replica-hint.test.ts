import { startGatewayProcess, type Child } from '../../support/process';
import { freePort } from '../../support/net';
import { hashOf, TEST_SECRET } from '../../support/credentials';

/**
 * Replicas each with a DATA_DIR of their own (a volume per pod) would each keep their own logouts:
 * the lock file cannot see that, so a gateway on the embedded database says it where the platform
 * tells us it may be one of several (Kubernetes).
 */
const HINT = 'if several replicas run, each has its own logouts and locks; set DATABASE_URL';

async function startWith(env: Record<string, string>): Promise<Child> {
  const gw = startGatewayProcess({
    APP_URL: 'https://auth.example.test',
    SECRET: TEST_SECRET,
    USERS: `alice:${hashOf('pw')}`,
    PORT: String(await freePort()),
    ADDRESS: '127.0.0.1',
    ...env,
  });
  await gw.waitForLine('portcullis listening');
  return gw;
}

describe('several replicas on the embedded database', () => {
  it('warns once under Kubernetes that each replica would keep its own logouts', async () => {
    const gw = await startWith({ KUBERNETES_SERVICE_HOST: '10.0.0.1' });
    try {
      expect(gw.stdout.split('\n').filter((l) => l.includes(HINT))).toHaveLength(1);
      expect(gw.stdout.split('\n').find((l) => l.includes(HINT))).toContain('"level":"warn"');
    } finally {
      gw.kill();
      await gw.exited;
    }
  });

  it('says nothing outside an orchestrator', async () => {
    const gw = await startWith({});
    try {
      expect(gw.stdout.split('\n').some((l) => l.includes(HINT))).toBe(false);
    } finally {
      gw.kill();
      await gw.exited;
    }
  });
});
