import { TOKENS } from '../../../src/composition/tokens';
import { capturedLogger } from '../../support/loggers';
import { hashOf, TEST_SECRET } from '../../support/credentials';
import { cookieFrom, startGateway, type RunningGateway } from '../../support/server';

const PASSWORD = 'Pa55word-that-must-never-be-logged';
const json = { 'Content-Type': 'application/json' };

describe('logs', () => {
  let gw: RunningGateway;
  const capture = capturedLogger('debug');
  let cookie = '';
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf(PASSWORD)}`, LOG_LEVEL: 'debug' }, { [TOKENS.Logger]: capture.logger });
    const wrong = await fetch(`${gw.url}/api/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'alice', password: `${PASSWORD}x` }) });
    ids.failed = wrong.headers.get('x-request-id') ?? '';
    const right = await fetch(`${gw.url}/api/login`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'alice', password: PASSWORD }) });
    ids.login = right.headers.get('x-request-id') ?? '';
    cookie = cookieFrom(right, 'portcullis-session')?.value ?? '';
    const session = { cookie: `portcullis-session=${cookie}`, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'app.example.test', 'X-Forwarded-Uri': '/' };
    await fetch(`${gw.url}/api/auth/traefik`, { headers: session });
    await fetch(`${gw.url}/api/user`, { headers: session });
    await fetch(`${gw.url}/api/auth/nginx`, {
      headers: { 'X-Original-URL': 'https://app.example.test/', Authorization: `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` },
    });
    await fetch(`${gw.url}/api/auth/nginx`, {
      headers: { 'X-Original-URL': 'https://app.example.test/', Authorization: `Basic ${Buffer.from(`alice:${PASSWORD}!`).toString('base64')}` },
    });
    const anonymous = await fetch(`${gw.url}/api/auth/traefik`, {
      headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'app.example.test', 'X-Forwarded-Uri': '/private?token=abc' },
    });
    ids.denied = anonymous.headers.get('x-request-id') ?? '';
    const logout = await fetch(`${gw.url}/api/logout`, { method: 'POST', headers: { ...json, cookie: `portcullis-session=${cookie}` }, body: '{}' });
    ids.logout = logout.headers.get('x-request-id') ?? '';
    await capture.logger.flush();
  });
  afterAll(() => gw.close());

  it('never contain the password, the session cookie, the Basic credentials or the SECRET', () => {
    const text = capture.text();
    expect(text.length).toBeGreaterThan(0);
    expect(cookie.length).toBeGreaterThan(20);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(cookie);
    expect(text).not.toContain(Buffer.from(`alice:${PASSWORD}`).toString('base64'));
    expect(text).not.toContain(TEST_SECRET);
    expect(text).not.toContain('token=abc');
  });

  it('are JSON lines with an ISO time, a level word and a message', () => {
    for (const line of capture.lines()) {
      expect(line).toEqual(expect.objectContaining({ level: expect.stringMatching(/^(debug|info|warn|error)$/), msg: expect.any(String) }));
      expect(new Date(String(line.time)).toISOString()).toBe(line.time);
    }
  });

  it('write an audit line for a failed and a successful login, with the request id that was returned', () => {
    const audit = capture.lines().filter((l) => l.msg === 'audit');
    expect(audit).toContainEqual(
      expect.objectContaining({ event: 'login_failed', login: 'alice', method: 'password', reason: 'invalid_credentials', requestId: ids.failed }),
    );
    expect(audit).toContainEqual(expect.objectContaining({ event: 'login_succeeded', username: 'alice', method: 'password', requestId: ids.login }));
  });

  it('write an audit line for HTTP Basic logins, a forward-auth denial and a logout', () => {
    const audit = capture.lines().filter((l) => l.msg === 'audit');
    expect(audit).toContainEqual(expect.objectContaining({ event: 'login_succeeded', method: 'basic', username: 'alice' }));
    expect(audit).toContainEqual(expect.objectContaining({ event: 'login_failed', method: 'basic', login: 'alice' }));
    expect(audit).toContainEqual(
      expect.objectContaining({ event: 'access_denied', username: '', host: 'app.example.test', reason: 'login_required', requestId: ids.denied }),
    );
    expect(audit).toContainEqual(expect.objectContaining({ event: 'logout', username: 'alice', requestId: ids.logout }));
  });

  it('give every request line a request id', () => {
    const requestLines = capture.lines().filter((l) => l.msg === 'request' || l.msg === 'audit');
    expect(requestLines.length).toBeGreaterThan(5);
    for (const line of requestLines) expect(line.requestId).toEqual(expect.any(String));
  });

  it('redact secret-named fields even if a caller logs them by mistake', async () => {
    const probe = capturedLogger('info');
    probe.logger.info('oops', { password: 'p1', headers: { cookie: 'c1', authorization: 'a1' }, nested: { token: 't1' } });
    await probe.logger.flush();
    expect(probe.text()).not.toMatch(/p1|c1|a1|t1/);
    expect(probe.lines()[0]).toMatchObject({ msg: 'oops', password: '[redacted]' });
  });
});
