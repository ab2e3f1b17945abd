import { loadConfig } from '../../../src/composition/config';

const HASH = '$2b$04$abcdefghijklmnopqrstuuG7SUDEqQ3DYgpmGkv9SOcr9cfM0zpa2';
const VALID = { APP_URL: 'https://auth.example.test', SECRET: 'a-secret-that-is-long-enough-0123456789', USERS: `alice:${HASH}`, SESSION_EXPIRY: '3600' };

function load(env: Record<string, string>) {
  return loadConfig({ env: { ...VALID, ...env } });
}

describe('idle timeout, renewal and "Keep me signed in" options', () => {
  it('are off when unset', () => {
    const result = load({});
    expect(result.ok && result.config).toMatchObject({ sessionIdleTimeoutSeconds: 0, sessionMaxLifetimeSeconds: 0, rememberMeExpirySeconds: 0 });
  });

  it('read whole seconds, like SESSION_EXPIRY', () => {
    const result = load({ SESSION_IDLE_TIMEOUT: '900', SESSION_MAX_LIFETIME: '604800', REMEMBER_ME_EXPIRY: '86400' });
    expect(result.ok && result.config).toMatchObject({ sessionIdleTimeoutSeconds: 900, sessionMaxLifetimeSeconds: 604800, rememberMeExpirySeconds: 86400 });
  });

  it('refuse a renewal bound shorter than SESSION_EXPIRY', () => {
    const result = load({ SESSION_MAX_LIFETIME: '60' });
    expect(!result.ok && result.problems).toEqual([expect.stringMatching(/^SESSION_MAX_LIFETIME \(60\) must be at least SESSION_EXPIRY \(3600\)/)]);
  });

  it('refuse a remembered lifetime no longer than SESSION_EXPIRY, or past the bound', () => {
    const short = load({ REMEMBER_ME_EXPIRY: '3600' });
    expect(!short.ok && short.problems).toEqual([expect.stringMatching(/^REMEMBER_ME_EXPIRY \(3600\) must be more than SESSION_EXPIRY/)]);
    const long = load({ REMEMBER_ME_EXPIRY: '90000', SESSION_MAX_LIFETIME: '86400' });
    expect(!long.ok && long.problems).toEqual([expect.stringMatching(/^REMEMBER_ME_EXPIRY \(90000\) must be at most SESSION_MAX_LIFETIME \(86400\)/)]);
  });

  it('refuse what is not a whole number of seconds', () => {
    const result = load({ SESSION_IDLE_TIMEOUT: '15m' });
    expect(!result.ok && result.problems).toEqual(['SESSION_IDLE_TIMEOUT must be a whole number from 0 to 31622400']);
  });
});
