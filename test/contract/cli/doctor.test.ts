import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../support/process';

/** Runs the built `portcullis doctor` as its own process, with `input` on a piped stdin. */
const doctor = (args: string[], input = '') => runCli(['doctor', ...args], { input });

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

jest.setTimeout(60_000);

describe('portcullis doctor (the built executable, its invocation)', () => {
  it('is listed in the help and has its own --help', async () => {
    const top = (await runCli(['--help'])).stdout;
    expect(top).toContain('doctor <url> [--as USER]');
    const help = await doctor(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: portcullis doctor <protected-url>/);
    for (const option of ['--as', '--password-stdin', '--password-file', '--public-path', '--resolve', '--insecure', '--timeout'])
      expect(help.stdout).toContain(option);
  });

  it('refuses a password given as an argument, before sending anything', async () => {
    const run = await doctor(['https://app.example.com/', '--as', 'alice', '--password', 'hunter2']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'portcullis: never give a password as an argument: pipe it on standard input or use --password-file (see portcullis doctor --help)\n',
    );
    expect(run.stdout).toBe('');
  });

  it.each([
    [[], 'doctor takes exactly one <protected-url>'],
    [['ftp://app.example.com/'], 'the protected URL must be an absolute http:// or https:// URL'],
    [['app.example.com'], 'the protected URL must be an absolute http:// or https:// URL'],
    [['https://alice:pw@app.example.com/'], 'never put credentials in the URL: use --as and standard input'],
    [['https://app.example.com/', '--frobnicate'], 'unknown option --frobnicate'],
    [['https://app.example.com/', '--resolve', 'nocolon'], '--resolve takes HOST:ADDRESS (e.g. app.example.com:203.0.113.7)'],
    [['https://app.example.com/', '--password-file', '/dev/null'], '--password-file goes with --as'],
    [['https://app.example.com/', '--password-stdin'], '--password-stdin goes with --as'],
    [['https://app.example.com/', '--as', 'alice', '--password-stdin', '--password-file', '/dev/null'], 'give --password-stdin or --password-file, not both'],
  ])('answers the invocation %j with one line and exit code 2', async (args, message) => {
    const run = await doctor(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`portcullis: ${message} (see portcullis doctor --help)\n`);
  });

  it('says plainly that nothing answers, and exits 1', async () => {
    const server = createServer();
    const port = await listen(server);
    await close(server);
    const run = await doctor([`http://127.0.0.1:${port}/`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`FAIL  baseline: no answer from http://127.0.0.1:${port}: nothing listens on 127.0.0.1:${port}`);
  });

  it('reports a URL served to anonymous visitors as a FAIL with the fix', async () => {
    const server = createServer((_req, res) => res.end('hello'));
    const port = await listen(server);
    try {
      const run = await doctor([`http://127.0.0.1:${port}/`]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        /^FAIL {2}baseline: an anonymous visit to http:\/\/127\.0\.0\.1:\d+\/ is served \(200\) without a login\n {6}fix: ask Portcullis about every request/m,
      );
    } finally {
      await close(server);
    }
  });

  it('reads an answer whole from a server that keeps the connection open, without waiting for the timeout', async () => {
    const sockets: Socket[] = [];
    const server = createTcpServer((socket) => {
      sockets.push(socket);
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const run = await doctor([`http://127.0.0.1:${port}/`, '--timeout', '20']);
      expect(run.stdout).toContain(`FAIL  baseline: an anonymous visit to http://127.0.0.1:${port}/ is served (200) without a login`);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 15_000);

  describe('with --as', () => {
    // A stand-in for a protected site and its login host on one port: anonymous visits go to
    // /login, and /api/login takes exactly one password.
    let server: Server;
    let port: number;
    const logins: string[] = [];
    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.method === 'POST' && req.url === '/api/login') {
          let body = '';
          req.on('data', (c: Buffer) => (body += c.toString()));
          req.on('end', () => {
            const { email, password } = JSON.parse(body) as { email: string; password: string };
            logins.push(email);
            if (password !== 'from the file') {
              res.writeHead(401, { 'content-type': 'application/json' }).end('{"status":401,"message":"Unauthorized"}');
              return;
            }
            res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'portcullis-session=abc; Path=/; HttpOnly; SameSite=Lax' });
            res.end('{"status":200,"message":"Logged in","totpPending":"false"}');
          });
          return;
        }
        const cookie = req.headers.cookie ?? '';
        if (cookie.includes('portcullis-session=abc')) return void res.end('app');
        res
          .writeHead(302, { location: `http://127.0.0.1:${port}/login?redirect_uri=${encodeURIComponent(`http://127.0.0.1:${port}${req.url ?? '/'}`)}` })
          .end();
      });
      port = await listen(server);
    });
    afterAll(() => close(server));

    it('reads the password from --password-file and never prints it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'portcullis-doctor-'));
      try {
        writeFileSync(join(dir, 'password'), 'from the file\nsecond line ignored\n');
        const run = await doctor([`http://127.0.0.1:${port}/`, '--as', 'alice', '--password-file', join(dir, 'password')]);
        expect(run.stdout).toContain(`PASS  login: logged in as alice through http://127.0.0.1:${port}/api/login`);
        expect(run.stdout).toMatch(/^WARN {2}cookie-secure: the login is plain http/m);
        expect(run.stdout + run.stderr).not.toContain('from the file');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('reads the password from the first line of standard input', async () => {
      const run = await doctor([`http://127.0.0.1:${port}/`, '--as', 'alice'], 'from the file\n');
      expect(run.stdout).toContain('PASS  login: logged in as alice');
      const explicit = await doctor([`http://127.0.0.1:${port}/`, '--as', 'alice', '--password-stdin'], 'from the file\n');
      expect(explicit.stdout).toContain('PASS  login: logged in as alice');
      const wrong = await doctor([`http://127.0.0.1:${port}/`, '--as', 'alice'], 'wrong\n');
      expect(wrong.stdout).toContain('FAIL  login: could not log in as alice');
      expect(wrong.code).toBe(1);
    });

    it('names a password file it cannot read, and sends nothing', async () => {
      const before = logins.length;
      const run = await doctor([`http://127.0.0.1:${port}/`, '--as', 'alice', '--password-file', '/nonexistent/password']);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('portcullis: cannot read the password file /nonexistent/password\n');
      expect(run.stdout).toBe('');
      expect(logins.length).toBe(before);
    });

    it('refuses to run without a password rather than trying an empty one', async () => {
      const before = logins.length;
      const run = await doctor([`http://127.0.0.1:${port}/`, '--as', 'alice'], '');
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('portcullis: no password for alice (type it, pipe it on standard input, or give --password-file)\n');
      expect(logins.length).toBe(before);
    });
  });
});
