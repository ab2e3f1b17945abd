import { envelopeOf } from '../../../src/adapters/http/answer';
import { currentUserAnswer, forwardAuthRefused, loginAnswer, oauthCallbackAnswer, totpAnswer } from '../../../src/adapters/http/answers';
import type { CookieSettings } from '../../../src/adapters/http/cookies';
import { err, ok } from '../../../src/domain/result';
import type { Session } from '../../../src/domain/session';

const cookies: CookieSettings = { domain: { domain: 'example.com', shareable: true }, secure: true };
const session = { issuedAt: 1_000_000, expiresAt: 1_000_000 + 3_600_000, totpPending: false } as Session;
const context = { apiMode: false, loginUrl: 'https://auth.example.com/login', unauthorizedUrl: 'https://auth.example.com/unauthorized' };

describe('answers, one pure mapping per use case', () => {
  it("sets the cookie value the login use case sealed, for the session's own lifetime", () => {
    const answer = loginAnswer(ok({ session, token: 'sealed-by-the-use-case' }), cookies);
    expect(envelopeOf(answer)).toEqual({ status: 200, code: 'logged_in', message: 'Logged in', totpPending: 'false' });
    expect(answer.cookies).toEqual(['portcullis-session=sealed-by-the-use-case; Path=/; Max-Age=3600; Domain=example.com; HttpOnly; SameSite=Lax; Secure']);
  });

  it('tells /api/user what the session proved and when, as amr, acr and authTime (issue 33); Basic and logged-out answers as before', () => {
    const identity = { username: 'tom', name: 'Tom', email: 'tom@example.com', groups: [], provider: 'username', oauth: false, totp: true };
    const proven = { password: 1_000, totp: 21_000 };
    expect(envelopeOf(currentUserAnswer({ state: 'logged_in', identity, proven }))).toMatchObject({
      code: 'authenticated',
      isLoggedIn: true,
      proven: { password: 1_000, totp: 21_000 },
      amr: ['pwd', 'otp', 'mfa'],
      acr: 'mfa',
      authTime: 21_000,
    });
    expect(envelopeOf(currentUserAnswer({ state: 'logged_in', identity, proven: { passkey: 5 } }))).toMatchObject({
      amr: ['hwk', 'user', 'mfa'],
      acr: 'phr',
      authTime: 5,
    });
    // A cookie sealed before issue 33 proved nothing it can tell.
    expect(envelopeOf(currentUserAnswer({ state: 'logged_in', identity, proven: {} }))).toMatchObject({ proven: {}, amr: [], acr: 'sfa', authTime: null });
    const basic = envelopeOf(currentUserAnswer({ state: 'logged_in', identity: { ...identity, provider: 'basic' } }));
    expect(basic).not.toHaveProperty('proven');
    expect(basic).not.toHaveProperty('amr');
    expect(envelopeOf(currentUserAnswer({ state: 'logged_out' }))).not.toHaveProperty('authTime');
  });

  it('gives a wrong and a replayed TOTP code one answer, and a login that no longer waits another', () => {
    expect(totpAnswer(err({ code: 'invalid_code' }), cookies)).toMatchObject({ status: 401, code: 'totp_invalid' });
    expect(totpAnswer(err({ code: 'totp_replayed' }), cookies)).toMatchObject({ status: 401, code: 'totp_invalid' });
    expect(totpAnswer(err({ code: 'not_pending' }), cookies)).toMatchObject({ status: 401, code: 'not_pending' });
  });

  it('tells nginx where to send the browser in a header, and redirects for the other proxies', () => {
    const refused = { code: 'unauthenticated', returnTo: 'https://app.example.com/x' } as const;
    expect(forwardAuthRefused(refused, { ...context, proxy: 'nginx' })).toMatchObject({
      status: 401,
      code: 'unauthorized',
      headers: [['x-portcullis-location', 'https://auth.example.com/login?redirect_uri=https%3A%2F%2Fapp.example.com%2Fx']],
    });
    expect(forwardAuthRefused(refused, { ...context, proxy: 'caddy' })).toMatchObject({
      status: 302,
      code: 'login_required',
      headers: [['location', expect.any(String)]],
    });
    expect(forwardAuthRefused(refused, { ...context, proxy: 'caddy', apiMode: true })).toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('sends a browser whose OAuth callback failed to the page named for it, with the code as reason', () => {
    const answer = oauthCallbackAnswer(err({ code: 'not_whitelisted', flowId: 'f1', email: 'x@example.com' }), false, 'https://auth.example.com', cookies);
    expect(answer).toMatchObject({
      status: 302,
      code: 'redirecting',
      headers: [['location', 'https://auth.example.com/unauthorized?reason=not_whitelisted&username=x%40example.com']],
    });
    expect(answer.cookies).toHaveLength(2);
    const missing = oauthCallbackAnswer(err({ code: 'email_missing', flowId: 'f1' }), false, 'https://auth.example.com', cookies);
    expect(missing.headers).toEqual([['location', 'https://auth.example.com/unauthorized?reason=email_missing']]);
    expect(oauthCallbackAnswer(err({ code: 'provider_unavailable', flowId: 'f1' }), true, 'https://auth.example.com', cookies)).toMatchObject({
      status: 502,
      code: 'provider_unavailable',
    });
  });

  it('names the refused e-mail on the not-whitelisted redirect (as tinyauth does), encoded so it cannot add parameters', () => {
    const email = 'eve+x@evil.test&reason=provider_denied#<script>alert(1)</script>';
    const answer = oauthCallbackAnswer(err({ code: 'not_whitelisted', flowId: 'f1', email }), false, 'https://auth.example.com', cookies);
    const location = new URL(String((answer.headers ?? []).find(([name]) => name === 'location')?.[1]));
    expect(location.origin + location.pathname).toBe('https://auth.example.com/unauthorized');
    expect(location.hash).toBe('');
    expect([...location.searchParams]).toEqual([
      ['reason', 'not_whitelisted'],
      ['username', email],
    ]);
  });

  it('keeps the refused e-mail out of the API-mode answer', () => {
    const answer = oauthCallbackAnswer(err({ code: 'not_whitelisted', flowId: 'f1', email: 'x@example.com' }), true, 'https://auth.example.com', cookies);
    expect(answer.status).toBe(403);
    expect(JSON.stringify(envelopeOf(answer))).not.toContain('x@example.com');
  });
});
