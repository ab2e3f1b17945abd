import type { IncomingMessage } from 'node:http';
import { BlockList } from 'node:net';
import { ClientAddressResolver } from '../../../src/adapters/http/client-address';
import { isOurJwt, JwtBearers, presentedJwt, REMEMBERED_CHARACTERS } from '../../../src/adapters/http/jwt-bearer';
import { readForwardAuthFacts } from '../../../src/adapters/http/request-facts';

const ISSUER = 'https://token.ci.example.test';
const ISSUERS: ReadonlySet<string> = new Set([ISSUER]);
const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (claims: Record<string, unknown>, signature = 'c2lnbmF0dXJl'): string => `${part({ alg: 'RS256', kid: 'k1' })}.${part(claims)}.${signature}`;

describe('which Bearer values are workload JWTs for the gateway (issue 32)', () => {
  it('takes a compact JWS whose unverified iss is a configured issuer, nothing else', () => {
    expect(isOurJwt(jwt({ iss: ISSUER, sub: 'repo:x' }), ISSUERS)).toBe(true);
    // alg none and a cut-off signature are still ours: refused by the verifier, not passed on as the app's.
    expect(isOurJwt(jwt({ iss: ISSUER }, ''), ISSUERS)).toBe(true);
    expect(isOurJwt(jwt({ iss: 'https://other.example.test' }), ISSUERS)).toBe(false);
    expect(isOurJwt(jwt({ iss: `${ISSUER}/` }), ISSUERS)).toBe(false);
    expect(isOurJwt(jwt({ sub: 'x' }), ISSUERS)).toBe(false);
    expect(isOurJwt(jwt({ iss: ISSUER }), new Set())).toBe(false);
  });

  it('leaves opaque tokens, truncated and unreadable JWTs to the application', () => {
    const whole = jwt({ iss: ISSUER });
    for (const value of [
      'opaque-token',
      whole.split('.').slice(0, 2).join('.'),
      `${whole}.extra`,
      `${whole.split('.')[0]}.${whole.split('.')[1].slice(0, 10)}.sig`,
      `${part({ alg: 'RS256' })}.${Buffer.from('[1,2]').toString('base64url')}.sig`,
      `${part({ alg: 'RS256' })}.${Buffer.from('not json').toString('base64url')}.sig`,
      `${part({ alg: 'RS256' })}.${part({ iss: ISSUER }).replace(/.$/, '+')}.sig`,
      '..',
    ]) {
      expect(isOurJwt(value, ISSUERS)).toBe(false);
    }
  });

  it('still takes an oversized JWT of ours (to refuse it), but never decodes a payload above 8 KiB', () => {
    expect(isOurJwt(jwt({ iss: ISSUER, pad: 'x'.repeat(5000) }, 's'.repeat(4000)), ISSUERS)).toBe(true);
    expect(isOurJwt(jwt({ iss: ISSUER, pad: 'x'.repeat(7000) }), ISSUERS)).toBe(false);
  });

  it('reads it from Authorization: Bearer only', () => {
    const token = jwt({ iss: ISSUER });
    expect(presentedJwt(`Bearer ${token}`, ISSUERS)).toBe(token);
    expect(presentedJwt(`bearer \t${token} `, ISSUERS)).toBe(token);
    expect(presentedJwt(`Basic ${token}`, ISSUERS)).toBeUndefined();
    expect(presentedJwt(undefined, ISSUERS)).toBeUndefined();
    expect(presentedJwt(`Bearer ${token}`, new Set())).toBeUndefined();
  });

  it('remembers what it read of each value, bounded, and still answers the same', () => {
    const bearers = new JwtBearers(ISSUERS);
    const ours = jwt({ iss: ISSUER });
    const theirs = jwt({ iss: 'https://other.example.test' });
    for (let i = 0; i < 3; i += 1) {
      expect(bearers.presented(`Bearer ${ours}`)).toBe(ours);
      expect(bearers.presented(`Bearer ${theirs}`)).toBeUndefined();
    }
    // Far more made-up values than the memo holds: it is emptied when full, and answers stay right.
    const filler = 'x'.repeat(1000);
    for (let i = 0; i < (2 * REMEMBERED_CHARACTERS) / filler.length; i += 1) bearers.presented(`Bearer ${jwt({ iss: ISSUER, i, filler })}`);
    expect((bearers as unknown as { characters: number }).characters).toBeLessThanOrEqual(REMEMBERED_CHARACTERS);
    expect(bearers.presented(`Bearer ${ours}`)).toBe(ours);
    expect(bearers.presented(`Bearer ${theirs}`)).toBeUndefined();
    expect(new JwtBearers(new Set()).presented(`Bearer ${ours}`)).toBeUndefined();
  });

  it('makes forward auth present it, in API mode, unless an access token of ours came too', () => {
    const resolver = new ClientAddressResolver(new BlockList());
    const request = (headers: Record<string, string>): IncomingMessage => ({ headers, socket: { remoteAddress: '192.0.2.7' } }) as unknown as IncomingMessage;
    const token = jwt({ iss: ISSUER });
    const facts = readForwardAuthFacts(request({ authorization: `Bearer ${token}`, accept: 'text/html' }), 'traefik', 'r', resolver, new JwtBearers(ISSUERS));
    expect(facts).toMatchObject({ jwt: token, token: undefined, apiMode: true });
    expect(readForwardAuthFacts(request({ authorization: `Bearer ${token}`, accept: 'text/html' }), 'traefik', 'r', resolver).jwt).toBeUndefined();
    const both = readForwardAuthFacts(
      request({ authorization: `Bearer ${token}`, 'portcullis-token': 'pct_x' }),
      'traefik',
      'r',
      resolver,
      new JwtBearers(ISSUERS),
    );
    expect(both).toMatchObject({ jwt: undefined, token: 'pct_x' });
  });
});
