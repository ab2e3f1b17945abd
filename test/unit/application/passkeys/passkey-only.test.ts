import { InMemoryPasskeyCredentials } from '../../../../src/adapters/state/memory/in-memory-passkey-credentials';
import { InMemoryPasskeyEnrolmentLinks } from '../../../../src/adapters/state/memory/in-memory-passkey-enrolment-links';
import { InMemoryPasskeySecondFactorChoices } from '../../../../src/adapters/state/memory/in-memory-passkey-second-factor-choices';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import { PasskeySecondFactor } from '../../../../src/application/passkeys/passkey-second-factor';
import { PendingSecondFactors } from '../../../../src/application/sessions/pending-second-factors';
import { IssuePasskeyEnrolmentLinkUseCase } from '../../../../src/application/passkeys/issue-passkey-enrolment-link';
import { aPasskeyOf, aUser } from '../../../support/builders';
import { FakeUserStore, FixedClock, RecordingAuditLog, SequentialIds } from '../../../support/fakes';

const DAY = 86_400_000;

describe('IssuePasskeyEnrolmentLinkUseCase', () => {
  const dora = aUser().named('dora').withPasskeyOnly().build();
  const alice = aUser().named('alice').build();
  const setup = () => {
    const clock = new FixedClock(Date.UTC(2026, 10, 23));
    const links = new InMemoryPasskeyEnrolmentLinks(clock);
    const audit = new RecordingAuditLog();
    const issue = new IssuePasskeyEnrolmentLinkUseCase(new FakeUserStore([dora, alice]), links, new SequentialIds(), clock, DAY, audit);
    return { clock, links, audit, issue };
  };

  it('makes a link for a passkey-only account, found by its e-mail too, that lives as long as configured', async () => {
    const { clock, links, audit, issue } = setup();
    const made = await issue.execute({ login: 'DORA@example.com' });
    if (!made.ok) throw new Error(made.error.code);
    expect(made.value).toEqual({ username: 'dora', code: 'id-1id-2', expiresAt: clock.now() + DAY });
    expect(audit.events).toEqual([expect.objectContaining({ event: 'passkey_enrolment_link_issued', username: 'dora' })]);
    expect(JSON.stringify(audit.events)).not.toContain(made.value.code);
    clock.advance(DAY - 1);
    expect(await links.take(made.value.code)).toBe('dora');
  });

  it('makes none for an account with a password (it would skip the password and any second factor), nor for an unknown one', async () => {
    const { issue } = setup();
    expect(await issue.execute({ login: 'alice' })).toEqual({ ok: false, error: { code: 'not_passkey_only' } });
    expect(await issue.execute({ login: 'nobody' })).toEqual({ ok: false, error: { code: 'unknown_account' } });
  });

  it('answers store_unavailable when the store cannot keep the link', async () => {
    const clock = new FixedClock();
    const failing = {
      put: () => Promise.reject(new StateStoreUnavailableError('redis')),
      take: () => Promise.resolve(null),
    };
    const issue = new IssuePasskeyEnrolmentLinkUseCase(new FakeUserStore([dora]), failing, new SequentialIds(), clock, DAY, new RecordingAuditLog());
    expect(await issue.execute({ login: 'dora' })).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });
});

describe('PasskeySecondFactor', () => {
  it('owes a passkey only with one registered, and then by the global option or the account’s own choice', async () => {
    const passkeys = new InMemoryPasskeyCredentials();
    const choices = new InMemoryPasskeySecondFactorChoices();
    const own = new PasskeySecondFactor(passkeys, choices, false);
    const global = new PasskeySecondFactor(passkeys, choices, true);
    expect(await own.owed('alice')).toBe(false);
    await choices.choose('alice', true);
    // Chosen, but no passkey to show: nothing is owed (no lock-out by removing the last one).
    expect(await own.owed('alice')).toBe(false);
    await passkeys.add(aPasskeyOf('alice'), 20);
    await passkeys.add(aPasskeyOf('bob'), 20);
    expect(await own.owed('alice')).toBe(true);
    expect(await own.owed('bob')).toBe(false);
    expect(await global.owed('bob')).toBe(true);
    await choices.choose('alice', false);
    expect(await own.owed('alice')).toBe(false);
  });
});

describe('PendingSecondFactors', () => {
  it('lists what a pending login can show: TOTP when the account has it, a passkey when it holds one', async () => {
    const passkeys = new InMemoryPasskeyCredentials();
    await passkeys.add(aPasskeyOf('alice'), 20);
    await passkeys.add(aPasskeyOf('carol'), 20);
    const users = new FakeUserStore([aUser().named('alice').build(), aUser().named('bob').withTotp().build(), aUser().named('carol').withTotp().build()]);
    const factors = new PendingSecondFactors(users, passkeys);
    expect(await factors.of('alice')).toEqual(['passkey']);
    expect(await factors.of('bob')).toEqual(['totp']);
    expect(await factors.of('carol')).toEqual(['totp', 'passkey']);
    expect(await factors.of('gone')).toEqual([]);
    expect(await new PendingSecondFactors(users, null).of('alice')).toEqual([]);
  });
});
