import { acrValuesOf, checkAuthenticationAsk, meetsAcr, provenAt, reportedAcr } from '../../../src/domain/authentication-ask';

const T = 1_700_000_000_000;

describe('what a relying party asks of a login (acr_values, max_age)', () => {
  it('reads the contexts it knows from acr_values, in order, and nothing from none or others', () => {
    expect(acrValuesOf('phr mfa')).toEqual(['phr', 'mfa']);
    expect(acrValuesOf('urn:example:loa:2 mfa')).toEqual(['mfa']);
    expect(acrValuesOf('urn:example:loa:2')).toBeNull();
    expect(acrValuesOf('')).toBeNull();
    expect(acrValuesOf(undefined)).toBeNull();
  });

  it('lets a stronger context meet a weaker ask, never the reverse', () => {
    expect(meetsAcr('phr', ['mfa'])).toBe(true);
    expect(meetsAcr('mfa', ['sfa'])).toBe(true);
    expect(meetsAcr('mfa', ['phr'])).toBe(false);
    expect(meetsAcr('sfa', ['phr', 'mfa'])).toBe(false);
    expect(meetsAcr('sfa', null)).toBe(true);
  });

  it('reports the first value asked that the proofs meet, else what they are', () => {
    expect(reportedAcr({ passkey: T }, ['mfa'])).toBe('mfa');
    expect(reportedAcr({ password: T, totp: T }, ['phr', 'mfa'])).toBe('mfa');
    expect(reportedAcr({ password: T }, ['phr'])).toBe('sfa');
    expect(reportedAcr({ passkey: T }, null)).toBe('phr');
  });

  it('takes the latest proof as auth_time, and the start of a session that records none', () => {
    expect(provenAt({ password: T, totp: T + 5_000 }, T - 1)).toBe(T + 5_000);
    expect(provenAt({}, T - 1)).toBe(T - 1);
  });

  it('meets max_age with a proof at or after the instant asked, and sends an older one to any method again', () => {
    const ask = { acr: null, provenSince: T };
    expect(checkAuthenticationAsk(ask, { password: T }, T, T + 1)).toEqual({ kind: 'met' });
    expect(checkAuthenticationAsk(ask, { password: T - 1 }, T - 1, T + 1)).toEqual({ kind: 'step_up', methods: ['password', 'totp', 'passkey'] });
  });

  it('asks only the methods that bring the context asked: a second factor for mfa, a passkey for phr', () => {
    const password = { password: T };
    expect(checkAuthenticationAsk({ acr: ['mfa'], provenSince: null }, password, T, T)).toEqual({ kind: 'step_up', methods: ['totp', 'passkey'] });
    expect(checkAuthenticationAsk({ acr: ['phr'], provenSince: null }, { password: T, totp: T }, T, T)).toEqual({ kind: 'step_up', methods: ['passkey'] });
    expect(checkAuthenticationAsk({ acr: ['mfa'], provenSince: null }, { password: T, totp: T }, T, T)).toEqual({ kind: 'met' });
    // An OAuth login and a TOTP code are not a password and a code: only a passkey brings mfa.
    expect(checkAuthenticationAsk({ acr: ['mfa'], provenSince: null }, { oauth: T }, T, T)).toEqual({ kind: 'step_up', methods: ['passkey'] });
  });

  it('asks for a fresh proof of the context when both are asked and the context is met but old', () => {
    const outcome = checkAuthenticationAsk({ acr: ['mfa'], provenSince: T }, { password: T - 10, totp: T - 10 }, T - 10, T + 1);
    // A password or a TOTP code proven now keeps mfa (both are held) and is fresh.
    expect(outcome).toEqual({ kind: 'step_up', methods: ['password', 'totp', 'passkey'] });
  });
});
