import * as promClient from 'prom-client';
import { PrometheusMetrics } from '../../../src/adapters/metrics/prometheus-metrics';
import { AccountCheckRunner, type AccountCheckOutcome } from '../../../src/adapters/users/account-check-runner';
import type { LogLevel } from '../../../src/adapters/system/logger';
import type { CheckDirectoryAccountsUseCase, DirectoryCheck } from '../../../src/application/sessions/check-directory-accounts';
import { UserStoreUnavailableError } from '../../../src/application/ports/user-store';
import { TestLogger } from '../../support/loggers';

/** A check whose next answers are scripted; `gate` holds a run open until released. */
class ScriptedCheck {
  calls = 0;
  answers: Array<DirectoryCheck | Error> = [];
  gate: Promise<void> | null = null;
  async execute(): Promise<DirectoryCheck> {
    this.calls += 1;
    if (this.gate !== null) await this.gate;
    const next = this.answers.shift() ?? { checked: 0, absent: 0, ended: 0 };
    if (next instanceof Error) throw next;
    return next;
  }
}

function setUp() {
  const check = new ScriptedCheck();
  const lines: Array<{ level: LogLevel; msg: string }> = [];
  const logger = new TestLogger('info', (line, level) => lines.push({ level, msg: (JSON.parse(line) as { msg: string }).msg }));
  const outcomes: AccountCheckOutcome[] = [];
  const runner = new AccountCheckRunner(check as unknown as CheckDirectoryAccountsUseCase, 1000, logger, (o) => outcomes.push(o));
  return { check, lines, outcomes, runner };
}

describe('AccountCheckRunner', () => {
  it('counts every failed check, logs the first of a run of failures and the recovery once, and never rejects', async () => {
    const { check, lines, outcomes, runner } = setUp();
    const down = new UserStoreUnavailableError('ldap');
    check.answers = [down, down, down, { checked: 1, absent: 0, ended: 0 }];
    for (let i = 0; i < 4; i += 1) await runner.runOnce();
    expect(outcomes).toEqual(['failed', 'failed', 'failed', 'ok']);
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
    expect(lines.map((l) => l.msg)).toContain('ldap account check working again');
  });

  it('runs one check at a time: a tick during a slow check joins it instead of asking the directory again', async () => {
    const { check, runner } = setUp();
    let release: () => void = () => undefined;
    check.gate = new Promise((r) => (release = r));
    const first = runner.runOnce();
    const second = runner.runOnce();
    expect(check.calls).toBe(1);
    release();
    await Promise.all([first, second]);
    check.gate = null;
    await runner.runOnce();
    expect(check.calls).toBe(2);
  });

  it('logs how many accounts a check found gone', async () => {
    const { check, lines, runner } = setUp();
    check.answers = [{ checked: 3, absent: 1, ended: 2 }];
    await runner.runOnce();
    expect(lines.map((l) => l.msg)).toEqual(['ldap accounts gone from the directory signed out everywhere']);
  });
});

describe('portcullis_ldap_account_checks_total', () => {
  it('counts checks by outcome', async () => {
    const metrics = new PrometheusMetrics(promClient, [], { defaultMetrics: false });
    metrics.ldapAccountCheck('ok');
    metrics.ldapAccountCheck('failed');
    metrics.ldapAccountCheck('failed');
    const text = await metrics.registry.metrics();
    expect(text).toContain('portcullis_ldap_account_checks_total{outcome="ok"} 1');
    expect(text).toContain('portcullis_ldap_account_checks_total{outcome="failed"} 2');
  });
});
