import { gzipSync } from 'node:zlib';
import { expectEnvelope } from '../../support/http';
import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

/** Every endpoint that reads a request body. */
const BODY_ENDPOINTS: readonly [string, string][] = [
  ['/api/login', JSON.stringify({ email: 'alice', password: 'pw' })],
  ['/api/totp', JSON.stringify({ code: '123456' })],
];
const UNSUPPORTED = { status: 415, code: 'unsupported_encoding', message: 'Request body must not be compressed: Content-Encoding is not supported' };

describe('request bodies with a Content-Encoding', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf('pw')}` });
  });
  afterAll(() => gw.close());

  const send = (path: string, encoding: string, body: string | Buffer): Promise<Response> =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding }, body });

  for (const [path, json] of BODY_ENDPOINTS) {
    it(`${path}: a body that is not what its gzip, deflate or br encoding says gets 415, never a 500`, async () => {
      for (const encoding of ['gzip', 'deflate', 'br', 'x-gzip']) {
        expect(await expectEnvelope(await send(path, encoding, json), 415)).toEqual(UNSUPPORTED);
      }
    });

    it(`${path}: an unknown or stacked encoding gets 415 naming the encoding problem`, async () => {
      for (const encoding of ['garbage', 'gzip, garbage', 'identity, gzip']) {
        expect(await expectEnvelope(await send(path, encoding, json), 415)).toEqual(UNSUPPORTED);
      }
    });

    it(`${path}: a really compressed body is refused too (browsers never compress requests)`, async () => {
      expect(await expectEnvelope(await send(path, 'gzip', gzipSync(json)), 415)).toEqual(UNSUPPORTED);
    });
  }

  it('an identity encoding is no encoding at all: the login goes through', async () => {
    expect((await send('/api/login', 'identity', BODY_ENDPOINTS[0][1])).status).toBe(200);
  });
});
