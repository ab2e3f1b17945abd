import { connect, type Socket } from 'node:net';
import { GatewayProcess } from '../../support/gateway-process';
import { freePort } from '../../support/redis-server';
import { hashOf, TEST_SECRET } from '../../support/server';

/** Reads from a raw socket until `text` arrived (or the socket ended). */
function readUntil(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const onData = (chunk: Buffer): void => {
      got += chunk.toString();
      if (got.includes(text)) done();
    };
    const done = (): void => {
      socket.off('data', onData);
      socket.off('end', done);
      resolve(got);
    };
    socket.on('data', onData);
    socket.once('end', done);
  });
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.once('error', () => resolve(true));
  });
}

describe('graceful shutdown of the built gateway process', () => {
  let gateway: GatewayProcess;
  afterEach(() => gateway?.kill());

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const port = await freePort();
    gateway = GatewayProcess.start({
      APP_URL: 'http://localhost',
      SECRET: TEST_SECRET,
      USERS: `alice:${hashOf('pw')}`,
      PORT: String(port),
      ADDRESS: '127.0.0.1',
      LOG_LEVEL: 'info',
    });
    const listening = JSON.parse(await gateway.waitFor('portcullis listening'));
    expect(listening).toMatchObject({ level: 'info', port, sharedState: 'sqlite' });

    // A login whose body is still on its way: the server has the headers (it said 100 Continue), not the body.
    const body = JSON.stringify({ email: 'alice', password: 'pw' });
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(await readUntil(socket, '\r\n\r\n')).toMatch(/^HTTP\/1\.1 100 Continue/);

    gateway.child.kill('SIGTERM');
    await gateway.waitFor('shutting down');
    expect(await refused(port)).toBe(true);

    const answer = readUntil(socket, '"Logged in"');
    socket.write(body);
    const response = await answer;
    expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(response).toMatch(/set-cookie: portcullis-session=/i);
    socket.destroy();

    expect(await gateway.exited).toBe(0);
  });
});
