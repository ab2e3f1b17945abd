import { connect, type Socket } from 'node:net';
import { hashOf } from '../../support/credentials';
import { accepts, freePort } from '../../support/net';
import { startGatewayProcess, type Child } from '../../support/process';

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

describe('graceful shutdown of the built gateway process', () => {
  let gateway: Child;
  afterEach(() => gateway?.kill());

  it('on SIGTERM stops accepting, finishes the request in flight, and exits 0', async () => {
    const port = await freePort();
    gateway = startGatewayProcess({
      USERS: `alice:${hashOf('pw')}`,
      PORT: String(port),
      LOG_LEVEL: 'info',
    });
    const listening = JSON.parse(await gateway.waitForLine('portcullis listening'));
    expect(listening).toMatchObject({ level: 'info', port, sharedState: 'sqlite' });

    // A login whose body is still on its way: the server has the headers (it said 100 Continue), not the body.
    const body = JSON.stringify({ email: 'alice', password: 'pw' });
    const socket = connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      `POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(await readUntil(socket, '\r\n\r\n')).toMatch(/^HTTP\/1\.1 100 Continue/);

    gateway.process.kill('SIGTERM');
    await gateway.waitForLine('shutting down');
    expect(await accepts(port)).toBe(false);

    const answer = readUntil(socket, '"Logged in"');
    socket.write(body);
    const response = await answer;
    expect(response).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(response).toMatch(/set-cookie: portcullis-session=/i);
    socket.destroy();

    expect(await gateway.exited).toBe(0);
  });
});
