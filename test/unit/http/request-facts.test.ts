import type { IncomingMessage } from 'node:http';
import { BlockList } from 'node:net';
import { ClientAddressResolver } from '../../../src/adapters/http/client-address';
import { readSoleCookie } from '../../../src/adapters/http/cookies';
import { readForwardAuthFacts, readRequestFacts } from '../../../src/adapters/http/request-facts';

const resolver = new ClientAddressResolver(new BlockList());
const request = (headers: Record<string, string | string[]>): IncomingMessage =>
  ({ headers, socket: { remoteAddress: '::ffff:192.0.2.7' } }) as unknown as IncomingMessage;
const b64 = (text: string): string => Buffer.from(text).toString('base64');

describe('reading a request into facts', () => {
  it('hands Basic credentials on decoded, never the header', () => {
    const facts = readRequestFacts(request({ authorization: `Basic ${b64('alice:pw:x')}`, accept: 'text/html' }), 'r1', resolver);
    const { credentials, ...rest } = facts;
    expect(rest).toEqual({ requestId: 'r1', ip: '192.0.2.7', apiMode: true, sessionToken: undefined });
    // Decoded when read (ADR 0034); the encoded text rides along for the Basic cache's key, the header itself does not.
    expect({ kind: credentials?.kind, username: credentials?.username, password: credentials?.password }).toEqual({
      kind: 'basic',
      username: 'alice',
      password: 'pw:x',
    });
    expect(credentials?.encoded).toBe(b64('alice:pw:x'));
    expect(Object.values(credentials ?? {})).not.toContain(`Basic ${b64('alice:pw:x')}`);
  });

  it('presents no credentials for malformed Basic headers and other schemes', () => {
    for (const authorization of ['Basic', 'Basic !!!', `Basic ${b64('no-colon')}`, `Basic ${b64(':pw')}`, 'Bearer token', 'Digest x']) {
      expect(readRequestFacts(request({ authorization }), 'r', resolver).credentials).toBeUndefined();
      expect(readForwardAuthFacts(request({ authorization }), 'nginx', 'r', resolver).credentials).toBeUndefined();
    }
  });

  it('keeps API mode for a request that claims Basic, even a malformed one, and for one that does not accept HTML', () => {
    expect(readRequestFacts(request({ authorization: 'Basic !!!', accept: 'text/html' }), 'r', resolver).apiMode).toBe(true);
    expect(readRequestFacts(request({ accept: 'application/json' }), 'r', resolver).apiMode).toBe(true);
    expect(readRequestFacts(request({}), 'r', resolver).apiMode).toBe(true);
    expect(readRequestFacts(request({ accept: 'text/html,*/*' }), 'r', resolver).apiMode).toBe(false);
  });

  it('reads the session cookie among others', () => {
    expect(readRequestFacts(request({ cookie: 'a=1; portcullis-session=tok; b=2' }), 'r', resolver).sessionToken).toBe('tok');
  });

  it('reads one session cookie, and tells several apart from none (review item 6)', () => {
    const SESSION = 'portcullis-session';
    expect(readSoleCookie(undefined, SESSION)).toBeUndefined();
    expect(readSoleCookie('a=1; xportcullis-session=1; portcullis-session-x=2', SESSION)).toBeUndefined();
    expect(readSoleCookie('portcullis-session=tok', SESSION)).toBe('tok');
    expect(readSoleCookie('a=1; portcullis-session=tok ; b=2; xportcullis-session=3', SESSION)).toBe('tok');
    for (const header of [
      'portcullis-session=evil; portcullis-session=tok',
      'a=1; portcullis-session=evil; b=2; portcullis-session=tok',
      'portcullis-session=; portcullis-session=tok',
      'portcullis-session=tok;portcullis-session=tok',
      // Two Cookie header lines, as Node joins them.
      'a=1; portcullis-session=evil; portcullis-session=tok',
    ]) {
      expect([header, readSoleCookie(header, SESSION)]).toEqual([header, null]);
      const facts = readForwardAuthFacts(request({ cookie: header }), 'nginx', 'r', resolver);
      expect([header, facts.severalSessionCookies, facts.sessionToken]).toEqual([header, true, undefined]);
    }
    expect(readForwardAuthFacts(request({ cookie: 'a=1; portcullis-session=tok' }), 'nginx', 'r', resolver)).toMatchObject({
      severalSessionCookies: false,
      sessionToken: 'tok',
    });
  });

  it('hands the proxy its forwarded headers joined as Node joined them, for the domain to refuse', () => {
    const facts = readForwardAuthFacts(
      request({ 'x-forwarded-host': 'a.example, b.example', 'x-original-url': 'https://x.example/' }),
      'traefik',
      'r',
      resolver,
    );
    expect(facts.forwarded).toMatchObject({ proxy: 'traefik', host: 'a.example, b.example', originalUrl: 'https://x.example/' });
  });
});
