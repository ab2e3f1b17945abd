import {
  attemptJti,
  BACKCHANNEL_LOGOUT_EVENT,
  LOGOUT_TOKEN_TTL_SECONDS,
  logoutTokenClaims,
  nextLogoutAttempt,
  type LogoutRetryPolicy,
} from '../../../src/domain/backchannel-logout';

const NOW = Date.UTC(2026, 11, 3, 8, 0, 0, 500);
const input = { issuer: 'https://auth.example.org', clientId: 'wiki', subject: 'sub-1', sid: 'sid-1', sessionRequired: true, jti: 'j-1', now: NOW };

describe('logoutTokenClaims', () => {
  it('says who, which session, the event, when, and for how long, and never carries a nonce', () => {
    const claims = logoutTokenClaims(input);
    expect(claims).toEqual({
      iss: 'https://auth.example.org',
      aud: 'wiki',
      iat: Math.floor(NOW / 1000),
      exp: Math.floor(NOW / 1000) + LOGOUT_TOKEN_TTL_SECONDS,
      jti: 'j-1',
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      sub: 'sub-1',
      sid: 'sid-1',
    });
    expect(claims).not.toHaveProperty('nonce');
    expect(BACKCHANNEL_LOGOUT_EVENT).toBe('http://schemas.openid.net/event/backchannel-logout');
  });

  it('names the subject alone when the session had no sid and the client does not require one', () => {
    const claims = logoutTokenClaims({ ...input, sid: null, sessionRequired: false });
    expect(claims?.sub).toBe('sub-1');
    expect(claims).not.toHaveProperty('sid');
  });

  it('has nothing to send to a client that requires a sid when none is known', () => {
    expect(logoutTokenClaims({ ...input, sid: null })).toBeNull();
  });
});

describe('nextLogoutAttempt', () => {
  const policy: LogoutRetryPolicy = { firstRetryMs: 1_000, maxRetryMs: 8_000, boundMs: 60_000 };
  const delivery = { createdAt: NOW };

  it('backs off exponentially from the first retry, capped at the longest', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempts) => (nextLogoutAttempt(delivery, attempts, NOW, policy) as number) - NOW);
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  });

  it('never schedules past the bound, and gives up once it has passed', () => {
    expect(nextLogoutAttempt(delivery, 3, NOW + 59_000, policy)).toBe(NOW + 60_000);
    expect(nextLogoutAttempt(delivery, 4, NOW + 60_000, policy)).toBeNull();
    expect(nextLogoutAttempt(delivery, 1, NOW + 3_600_000, policy)).toBeNull();
  });

  it('does not overflow after very many attempts', () => {
    expect(nextLogoutAttempt(delivery, 5_000, NOW, policy)).toBe(NOW + 8_000);
  });
});

describe('attemptJti', () => {
  it('differs between attempts of one delivery', () => {
    expect(attemptJti({ id: 'd', attempts: 0 })).not.toBe(attemptJti({ id: 'd', attempts: 1 }));
  });
});
