import { runDoctor, startExamples, startLab, type DoctorRun, type Lab, type Mistakes, type ProxyKind } from './support/doctor-lab';

/**
 * `portcullis doctor` against real nginx and Caddy in front of the real gateway and an upstream
 * that echoes its request headers: every check PASSes for a correct wiring, and each classic
 * mistake is reported as a FAIL of the check that names it.
 */

const RESOLVE = ['--resolve', '*.example.test:127.0.0.1'];

function doctor(lab: Lab, extra: readonly string[] = []): Promise<DoctorRun> {
  return runDoctor([lab.appUrl, '--as', lab.username, ...RESOLVE, '--insecure', ...extra], `${lab.password}\n`);
}

/** The lines of a check, for a readable failure message. */
function linesOf(run: DoctorRun, check: string): string {
  return run.stdout
    .split('\n')
    .filter((l) => l.includes(` ${check}:`))
    .join('\n');
}

function expectFail(run: DoctorRun, check: string): void {
  expect({ check, verdicts: run.verdicts.get(check), lines: linesOf(run, check) }).toEqual(
    expect.objectContaining({ check, verdicts: expect.arrayContaining(['FAIL']) }),
  );
}

const ALL_CHECKS = [
  'baseline',
  'x-forwarded-host',
  'x-forwarded-uri',
  'x-forwarded-proto',
  'x-original-url',
  'remote-headers',
  'ambiguous-paths',
  'unknown-host',
  'absolute-form-unknown',
  'absolute-form',
  'login',
  'cookie-secure',
  'cookie-httponly',
  'cookie-samesite',
  'cookie-domain',
  'auth-api-login-host',
  'auth-api-app-host',
  'login-host-routes',
  'session',
  'upstream-remote-headers',
  'upstream-x-forwarded-host',
  'upstream-x-forwarded-uri',
  'upstream-x-original-url',
  'upstream-access-token',
];

interface Mistake {
  readonly name: string;
  readonly mistakes: Mistakes;
  /** The checks that must FAIL, per proxy (each independent of which forwarded headers the gateway believes). */
  readonly fails: Readonly<Record<ProxyKind, readonly string[]>>;
  readonly args?: readonly string[];
}

const UPSTREAM_FORWARDED = ['upstream-x-forwarded-host', 'upstream-x-forwarded-uri', 'upstream-x-original-url'];

const MISTAKES: readonly Mistake[] = [
  {
    name: "passes the client's X-Forwarded-* and X-Original-URL on",
    mistakes: { clientForwarded: true },
    // nginx's auth location still sets X-Original-URL, so what the decision sees depends on the
    // gateway's reading of the headers; what reaches the app does not. Caddy trusting the client
    // hands its X-Forwarded-Host and -Proto to the caddy endpoint, which reads exactly those.
    fails: { nginx: UPSTREAM_FORWARDED, caddy: ['x-forwarded-host', 'x-forwarded-proto', ...UPSTREAM_FORWARDED] },
  },
  {
    name: 'has no default server for unknown hosts (nginx: and sends $http_host)',
    mistakes: { noDefaultHost: true },
    // Caddy routes an absolute-form request by its request line and decides on that same host.
    fails: { nginx: ['unknown-host', 'absolute-form-unknown', 'absolute-form'], caddy: ['unknown-host', 'absolute-form-unknown'] },
  },
  {
    name: 'routes /api/auth/* of the login host to Portcullis',
    mistakes: { publicAuthApi: true },
    fails: { nginx: ['auth-api-login-host'], caddy: ['auth-api-login-host'] },
  },
  {
    name: 'lists the login host paths by hand and misses the account, passkey and OpenID Connect ones',
    mistakes: { pathsByHand: true },
    fails: { nginx: ['login-host-routes'], caddy: ['login-host-routes'] },
  },
  {
    name: "lets the client's Remote-* headers through to the app",
    mistakes: { clientRemote: true },
    fails: { nginx: ['upstream-remote-headers'], caddy: ['upstream-remote-headers'] },
  },
  {
    name: "lets the client's access token through to the app",
    mistakes: { clientToken: true },
    fails: { nginx: ['upstream-access-token'], caddy: ['upstream-access-token'] },
  },
  {
    name: 'exempts a /public/ prefix from forward auth itself',
    mistakes: { publicPrefix: true },
    fails: { nginx: ['ambiguous-paths'], caddy: ['ambiguous-paths'] },
    args: ['--public-path', '/public/'],
  },
];

describe.each(['nginx', 'caddy'] as const)('portcullis doctor in front of %s', (kind: ProxyKind) => {
  let lab: Lab;
  beforeAll(async () => {
    lab = await startLab();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('reports every check PASS, and exit code 0, for a correct wiring', async () => {
    await lab.useProxy(kind);
    const run = await doctor(lab);
    expect(run.stdout.split('\n').filter((l) => /^(WARN|FAIL|SKIP)/.test(l))).toEqual([]);
    expect([...run.verdicts.keys()].sort()).toEqual([...ALL_CHECKS].sort());
    expect(run.stdout).toMatch(/\n25 passed, 0 warnings, 0 failed\n$/);
    expect(run.code).toBe(0);
  });

  it.each(MISTAKES)('reports a FAIL with its fix, and exit code 1, when the proxy $name', async ({ mistakes, fails, args }) => {
    await lab.useProxy(kind, mistakes);
    const run = await doctor(lab, args);
    // DOCTOR_SHOW=1 prints what the doctor said about each mistake, for a look at its wording.
    if (process.env.DOCTOR_SHOW)
      console.log(
        kind,
        JSON.stringify(mistakes),
        run.stdout
          .split('\n')
          .filter((l) => !l.startsWith('PASS'))
          .join('\n'),
      );
    for (const check of fails[kind]) expectFail(run, check);
    expect(run.stdout).toMatch(/^FAIL .*\n {6}fix: \S/m);
    expect(run.code).toBe(1);
  });
});

describe.each(['nginx', 'caddy'] as const)('portcullis doctor and TLS, behind %s', (kind: ProxyKind) => {
  let lab: Lab;
  beforeAll(async () => {
    // The classic: a gateway told its cookie need not be Secure, behind a proxy that serves https.
    lab = await startLab({ gatewayEnv: { COOKIE_SECURE: 'false' } });
    await lab.useProxy(kind);
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('reports a session cookie set over https without Secure as a FAIL', async () => {
    const run = await doctor(lab);
    expectFail(run, 'cookie-secure');
    expect(linesOf(run, 'cookie-secure')).toContain('without Secure');
    expect(run.code).toBe(1);
  });

  it('refuses a self-signed certificate unless --insecure is given, and says so', async () => {
    const run = await runDoctor([lab.appUrl, ...RESOLVE]);
    expect(run.stdout).toMatch(/^FAIL {2}baseline: .*not trusted.*--insecure/m);
    expect(run.code).toBe(1);
  });
});

describe.each(['nginx', 'caddy'] as const)('the shipped %s example, checked by portcullis doctor', (kind: ProxyKind) => {
  it('passes every check, ambiguous paths aimed at a path the rules make public included; only the plain-http login is a warning', async () => {
    const site = await startExamples(kind);
    try {
      const run = await runDoctor([site.appUrl, '--as', site.username, ...RESOLVE, '--public-path', '/public/x'], `${site.password}\n`);
      // The examples run on plain http here (as the end-to-end suite fills them): the cookie cannot be Secure.
      expect(run.stdout.split('\n').filter((l) => /^(WARN|FAIL|SKIP)/.test(l))).toEqual([
        expect.stringMatching(/^WARN {2}cookie-secure: the login is plain http/),
      ]);
      expect([...run.verdicts.keys()].sort()).toEqual([...ALL_CHECKS].sort());
      expect(run.code).toBe(0);
    } finally {
      await site.stop();
    }
  });
});
