import type { ReadinessCheck } from '../../../src/application/ports/readiness-check';
import { CheckReadinessUseCase } from '../../../src/application/use-cases/check-readiness';

const up = (name: string): ReadinessCheck => ({ name, check: async () => undefined });
const down = (name: string): ReadinessCheck => ({ name, check: async () => Promise.reject(new Error('no')) });
/** Never answers until aborted, like a store behind a dropped network. */
const hanging = (name: string): ReadinessCheck & { aborted: boolean } => {
  const probe = {
    name,
    aborted: false,
    check: (signal: AbortSignal) =>
      new Promise<void>((_, reject) =>
        signal.addEventListener('abort', () => {
          probe.aborted = true;
          reject(new Error('aborted'));
        }),
      ),
  };
  return probe;
};

describe('CheckReadinessUseCase', () => {
  it('is ready when every dependency answers, listing each as up', async () => {
    const result = await new CheckReadinessUseCase([up('redis'), up('ldap')], 50).execute();
    expect(result).toEqual({ ok: true, value: { checks: { redis: 'up', ldap: 'up' } } });
  });

  it('is ready with nothing to check', async () => {
    expect(await new CheckReadinessUseCase([], 50).execute()).toEqual({ ok: true, value: { checks: {} } });
  });

  it('names the dependencies that failed', async () => {
    const result = await new CheckReadinessUseCase([down('redis'), up('ldap')], 50).execute();
    expect(result).toEqual({ ok: false, error: { code: 'not_ready', checks: { redis: 'down', ldap: 'up' }, down: ['redis'] } });
  });

  it('counts a dependency that does not answer in time as down and aborts its probe', async () => {
    const slow = hanging('ldap');
    const result = await new CheckReadinessUseCase([up('redis'), slow], 20).execute();
    expect(!result.ok && result.error.down).toEqual(['ldap']);
    expect(slow.aborted).toBe(true);
  });
});
