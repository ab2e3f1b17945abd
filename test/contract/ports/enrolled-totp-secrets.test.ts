import { InMemoryEnrolledTotpSecrets } from '../../../src/adapters/state/memory/in-memory-enrolled-totp-secrets';
import { enrolledTotpSecretsContract } from './enrolled-totp-secrets.contract';

enrolledTotpSecretsContract('InMemoryEnrolledTotpSecrets', () => new InMemoryEnrolledTotpSecrets());

describe('InMemoryEnrolledTotpSecrets bound', () => {
  it('refuses new enrolments past its capacity rather than forgetting old ones', async () => {
    const store = new InMemoryEnrolledTotpSecrets(1);
    expect(await store.enrol('a', 'JBSWY3DPEHPK3PXP')).toBe(true);
    expect(await store.enrol('b', 'JBSWY3DPEHPK3PXP')).toBe(false);
    expect(store.secretOf('a')).toBe('JBSWY3DPEHPK3PXP');
  });
});
