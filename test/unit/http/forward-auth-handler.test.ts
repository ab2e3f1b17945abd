import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { BlockList } from 'node:net';
import { ClientAddressResolver } from '../../../src/adapters/http/client-address';
import { forwardAuthHandler } from '../../../src/adapters/http/forward-auth';
import type { HttpSettings } from '../../../src/adapters/http/http-settings';
import type { Logger } from '../../../src/adapters/system/logger';
import type { AuthorizeProxyRequestUseCase } from '../../../src/application/forward-auth/authorize-proxy-request';
import { err, ok } from '../../../src/domain/result';
import type { Identity } from '../../../src/domain/session';

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const settings = {
  appUrl: 'https://auth.example.com',
  clientAddress: new ClientAddressResolver(new BlockList()),
  logger: silent,
} as unknown as HttpSettings;

const identity = (username: string, groups: string[] = []): Identity =>
  Object.freeze({ username, name: `${username}\u0007 Name`, email: `${username}@example.com`, groups, provider: 'username', oauth: false, totp: false });

/** A use case that answers whatever the test puts in `next`. */
function useCaseAnswering(answers: Array<Awaited<ReturnType<AuthorizeProxyRequestUseCase['execute']>>>): AuthorizeProxyRequestUseCase {
  return { execute: async () => answers.shift() } as unknown as AuthorizeProxyRequestUseCase;
}

interface Written {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer | undefined;
}

async function ask(
  handle: ReturnType<typeof forwardAuthHandler>,
  method = 'GET',
  url = '/api/auth/traefik',
  headers: Record<string, string> = { accept: 'application/json' },
): Promise<Written> {
  const written: Written = { status: 0, headers: {}, body: undefined };
  const res = {
    headersSent: false,
    writeHead(status: number, headers: OutgoingHttpHeaders) {
      written.status = status;
      written.headers = headers;
      return this;
    },
    end(body?: Buffer) {
      written.body = body;
    },
    destroy() {},
  } as unknown as ServerResponse;
  const req = { url, method, headers, socket: { remoteAddress: '127.0.0.1' } } as unknown as IncomingMessage;
  await handle(req, res);
  return written;
}

describe('forwardAuthHandler', () => {
  it('answers an allowed identity with cleaned identity headers and the Authenticated envelope', async () => {
    const handle = forwardAuthHandler(useCaseAnswering([ok({ identity: identity('alice', ['admins', 'ops']), headers: {} })]), settings);
    const answer = await ask(handle);
    expect(answer.status).toBe(200);
    expect(answer.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'remote-user': 'alice',
      'remote-name': 'alice Name',
      'remote-email': 'alice@example.com',
      'remote-groups': 'admins,ops',
      'content-length': answer.body?.length,
    });
    expect(JSON.parse(String(answer.body))).toEqual({ status: 200, code: 'authenticated', message: 'Authenticated' });
  });

  it('gives the same identity the same headers again and another identity its own', async () => {
    const alice = identity('alice');
    const bob = identity('bob');
    const handle = forwardAuthHandler(
      useCaseAnswering([ok({ identity: alice, headers: {} }), ok({ identity: alice, headers: {} }), ok({ identity: bob, headers: {} })]),
      settings,
    );
    const first = await ask(handle);
    const second = await ask(handle);
    const third = await ask(handle);
    const identityPart = (h: OutgoingHttpHeaders) => Object.fromEntries(Object.entries(h).filter(([name]) => name.startsWith('remote-')));
    expect(identityPart(second.headers)).toEqual(identityPart(first.headers));
    expect(third.headers['remote-user']).toBe('bob');
    expect(first.headers['remote-user']).toBe('alice');
    expect(first.headers['remote-groups']).toBeUndefined();
  });

  it('adds the policy headers, lower-cased and cleaned, without touching the cached identity headers', async () => {
    const alice = identity('alice');
    const handle = forwardAuthHandler(
      useCaseAnswering([ok({ identity: alice, headers: {} }), ok({ identity: alice, headers: { 'X-App-Role': 'viewer\u0000' } })]),
      settings,
    );
    const plain = await ask(handle);
    const withPolicy = await ask(handle);
    expect(withPolicy.headers['x-app-role']).toBe('viewer');
    expect(withPolicy.headers['remote-user']).toBe('alice');
    expect(plain.headers['x-app-role']).toBeUndefined();
  });

  it('answers HEAD with the same headers and no body', async () => {
    const handle = forwardAuthHandler(useCaseAnswering([ok({ identity: identity('alice'), headers: {} })]), settings);
    const answer = await ask(handle, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.body).toBeUndefined();
    expect(answer.headers['content-length']).toBeGreaterThan(0);
  });

  it('answers a refused API request 401 with the constant body', async () => {
    const handle = forwardAuthHandler(useCaseAnswering([err({ code: 'unauthenticated', returnTo: null })]), settings);
    const answer = await ask(handle);
    expect(answer.status).toBe(401);
    expect(JSON.parse(String(answer.body))).toEqual({ status: 401, code: 'unauthorized', message: 'Unauthorized' });
  });

  it('answers 500 with a fixed envelope when the use case throws, and never rejects', async () => {
    const throwing = { execute: async () => Promise.reject(new Error('secret detail')) } as unknown as AuthorizeProxyRequestUseCase;
    const answer = await ask(forwardAuthHandler(throwing, settings));
    expect(answer.status).toBe(500);
    expect(String(answer.body)).not.toContain('secret detail');
  });

  it('answers an unknown proxy 400 naming the three it knows', async () => {
    const answer = await ask(forwardAuthHandler(useCaseAnswering([]), settings), 'GET', '/api/auth/apache?x=1');
    expect(answer.status).toBe(400);
    expect(String(answer.body)).toContain('traefik, nginx, caddy');
  });

  it('sends each browser without a session to log in with its own return target, however many targets came before', async () => {
    const targets = [...Array.from({ length: 600 }, (_, i) => `https://app.example.com/p/${i}?q=a b&r=é`), 'https://app.example.com/p/5?q=a b&r=é', null, null];
    const handle = forwardAuthHandler(useCaseAnswering(targets.map((returnTo) => err({ code: 'unauthenticated' as const, returnTo }))), settings);
    const browser = { accept: 'text/html' };
    for (const returnTo of targets) {
      const answer = await ask(handle, 'GET', '/api/auth/traefik', browser);
      expect(answer.status).toBe(302);
      const login = 'https://auth.example.com/login';
      expect(answer.headers.location).toBe(returnTo === null ? login : `${login}?redirect_uri=${encodeURIComponent(returnTo)}`);
      expect(JSON.parse(String(answer.body))).toMatchObject({ status: 302, code: 'login_required' });
    }
    // nginx gets the status and the place in its own header, an API client no redirect.
    const nginx = forwardAuthHandler(useCaseAnswering([err({ code: 'unauthenticated', returnTo: 'https://app.example.com/x' })]), settings);
    expect((await ask(nginx, 'GET', '/api/auth/nginx', browser)).headers).toMatchObject({
      'x-portcullis-location': `https://auth.example.com/login?redirect_uri=${encodeURIComponent('https://app.example.com/x')}`,
    });
    const api = forwardAuthHandler(useCaseAnswering([err({ code: 'unauthenticated', returnTo: 'https://app.example.com/x' })]), settings);
    const refused = await ask(api);
    expect(refused.status).toBe(401);
    expect(refused.headers.location).toBeUndefined();
  });
});
