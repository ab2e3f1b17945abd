import type { ReadinessCheck } from '../../../../src/application/readiness/readiness-check';
import { CheckReadinessUseCase } from '../../../../src/application/readiness/check-readiness';

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

const EVERY = { scope: 'every_dependency' } as const;
const FORWARD_AUTH = { scope: 'forward_auth' } as const;
const gating = (check: ReadinessCheck): ReadinessCheck => ({ ...check, gatesForwardAuth: true });

describe('CheckReadinessUseCase', () => {
  it('is ready when every dependency answers, listing each as up', async () => {
    const result = await new CheckReadinessUseCase([up('redis'), up('ldap')], 50).execute(EVERY);
    expect(result).toEqual({ ok: true, value: { checks: { redis: 'up', ldap: 'up' } } });
  });

  it('is ready with nothing to check', async () => {
    expect(await new CheckReadinessUseCase([], 50).execute(EVERY)).toEqual({ ok: true, value: { checks: {} } });
  });

  it('names the dependencies that failed', async () => {
    const result = await new CheckReadinessUseCase([down('redis'), up('ldap')], 50).execute(EVERY);
    expect(result).toEqual({ ok: false, error: { code: 'not_ready', checks: { redis: 'down', ldap: 'up' }, down: ['redis'] } });
  });

  it('counts a dependency that does not answer in time as down and aborts its probe', async () => {
    const slow = hanging('ldap');
    const result = await new CheckReadinessUseCase([up('redis'), slow], 20).execute(EVERY);
    expect(!result.ok && result.error.down).toEqual(['ldap']);
    expect(slow.aborted).toBe(true);
  });

  describe('scope forward_auth (what a load balancer asks)', () => {
    it('stays ready while a shared store is down, naming it as degraded', async () => {
      const result = await new CheckReadinessUseCase([gating(up('gateway')), down('redis'), gating(up('revocations'))], 50).execute(FORWARD_AUTH);
      expect(result).toEqual({ ok: true, value: { checks: { gateway: 'up', redis: 'down', revocations: 'up' }, degraded: ['redis'] } });
    });

    it('is not ready when a check that gates forward auth is down, naming every dependency that is down', async () => {
      const result = await new CheckReadinessUseCase([gating(up('gateway')), down('redis'), gating(down('revocations'))], 50).execute(FORWARD_AUTH);
      expect(result).toEqual({
        ok: false,
        error: { code: 'not_ready', checks: { gateway: 'up', redis: 'down', revocations: 'down' }, down: ['redis', 'revocations'] },
      });
    });

    it('counts a gating check that does not answer in time as down', async () => {
      const result = await new CheckReadinessUseCase([gating(hanging('gateway'))], 20).execute(FORWARD_AUTH);
      expect(result.ok).toBe(false);
    });

    it('is plainly ready when everything answers', async () => {
      expect(await new CheckReadinessUseCase([gating(up('gateway')), up('redis')], 50).execute(FORWARD_AUTH)).toEqual({
        ok: true,
        value: { checks: { gateway: 'up', redis: 'up' } },
      });
    });
  });

  it('scope every_dependency fails on a store that does not gate forward auth', async () => {
    const result = await new CheckReadinessUseCase([gating(up('gateway')), down('redis')], 50).execute(EVERY);
    expect(result).toEqual({ ok: false, error: { code: 'not_ready', checks: { gateway: 'up', redis: 'down' }, down: ['redis'] } });
  });
});
