import { TOKENS } from '../../../src/composition/tokens';
import { capturedLogger } from '../../support/loggers';
import { hashOf } from '../../support/credentials';
import { startGateway, type RunningGateway } from '../../support/server';

const PASSWORD = 'a-password-for-the-audit-levels';

describe('the info log of a gateway', () => {
  let gw: RunningGateway;
  const capture = capturedLogger('info');

  beforeAll(async () => {
    gw = await startGateway({ USERS: `alice:${hashOf(PASSWORD)}`, LOG_LEVEL: 'info' }, { [TOKENS.Logger]: capture.logger });
  });
  afterAll(() => gw.close());

  it('has no audit line for an anonymous first visit, which is only sent to the login page', async () => {
    const answer = await fetch(`${gw.url}/api/auth/nginx`, { headers: { 'X-Original-URL': 'https://app.example.test/' } });
    expect(answer.status).toBe(401);
    await capture.logger.flush();
    expect(capture.lines().filter((l) => l.msg === 'audit')).toEqual([]);
  });

  it('still has one for a bad Basic credential', async () => {
    const answer = await fetch(`${gw.url}/api/auth/nginx`, {
      headers: { 'X-Original-URL': 'https://app.example.test/', Authorization: `Basic ${Buffer.from(`alice:${PASSWORD}x`).toString('base64')}` },
    });
    expect(answer.status).toBe(401);
    await capture.logger.flush();
    expect(capture.lines()).toContainEqual(expect.objectContaining({ msg: 'audit', event: 'login_failed', login: 'alice', level: 'info' }));
  });
});
