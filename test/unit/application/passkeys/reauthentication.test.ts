import { AesGcmPasskeyChallengeSealer } from '../../../../src/adapters/crypto/aes-gcm-passkey-challenge-sealer';
import type { PasskeyAssertionCheck } from '../../../../src/application/passkeys/passkey-assertion-check';
import type { Owner } from '../../../../src/application/passkeys/passkey-owner';
import { Reauthentication } from '../../../../src/application/passkeys/reauthentication';
import type { Account } from '../../../../src/domain/account';
import { ok } from '../../../../src/domain/result';
import { identityOf } from '../../../../src/domain/session';
import { aUser } from '../../../support/builders';
import { makeCore } from '../../../support/core';
import { TEST_SECRET } from '../../../support/credentials';

const ip = '198.51.100.7';
const alice = aUser().named('alice').withPassword('pw').build();
const bob = aUser().named('bob').withPassword('bob-pw').build();
const dora = aUser().named('dora').withPasskeyOnly().build();

function ownerOf(account: Account, sessionId = 's1'): Owner {
  return {
    kind: 'owner',
    account,
    session: { ...identityOf(account, 'username', false), id: sessionId, issuedAt: 0, expiresAt: Date.now() + 60_000, totpPending: false, proven: {} },
  };
}

describe('Reauthentication', () => {
  const setup = () => {
    const core = makeCore([alice, bob, dora]);
    const sealer = new AesGcmPasskeyChallengeSealer(TEST_SECRET);
    const checked: unknown[] = [];
    // The assertion check has its own tests (the passkey contract suite); here: what reaches it.
    const assertions = {
      check: (assertion: unknown, accept: () => Promise<unknown>) => {
        checked.push(assertion);
        return accept().then((v) => ok(v));
      },
    } as unknown as PasskeyAssertionCheck;
    const reauthentication = new Reauthentication(core.credentials, assertions, sealer, core.clock, core.audit);
    return { core, sealer, checked, reauthentication };
  };

  it('asks an account with a password for it, and accepts only the right one', async () => {
    const { core, reauthentication } = setup();
    expect(await reauthentication.prove(ownerOf(alice), {}, { ip })).toEqual({ ok: false, error: { code: 'reauthentication_required', method: 'password' } });
    expect(await reauthentication.prove(ownerOf(alice), { password: 42 }, { ip })).toMatchObject({ ok: false, error: { code: 'reauthentication_required' } });
    // Another account's password proves nothing for this one.
    expect(await reauthentication.prove(ownerOf(alice), { password: 'bob-pw' }, { ip })).toEqual({ ok: false, error: { code: 'invalid_credentials' } });
    expect(await reauthentication.prove(ownerOf(alice), { password: 'pw' }, { ip })).toEqual({ ok: true, value: undefined });
    expect(core.audit.events).toContainEqual(expect.objectContaining({ event: 'reauthenticated', username: 'alice', method: 'password' }));
  });

  it('counts wrong passwords under the account lock: once locked, even the right one proves nothing', async () => {
    const { reauthentication } = setup();
    for (let i = 0; i < 3; i += 1) await reauthentication.prove(ownerOf(bob), { password: 'guess' }, { ip });
    expect(await reauthentication.prove(ownerOf(bob), { password: 'bob-pw' }, { ip })).toMatchObject({ ok: false, error: { code: 'account_locked' } });
  });

  it('asks a passkey-only account for one of its passkeys, answering a ceremony of this very session', async () => {
    const { core, sealer, checked, reauthentication } = setup();
    const expiresAt = core.clock.now() + 60_000;
    const ceremony = (over: Record<string, unknown> = {}) =>
      sealer.seal({ id: 'c1', purpose: 'reauthenticate', challenge: 'xyz', username: 'dora', sessionId: 's1', expiresAt, ...over });
    const response = { id: 'cred' };
    expect(await reauthentication.prove(ownerOf(dora), { password: 'anything' }, { ip })).toEqual({
      ok: false,
      error: { code: 'reauthentication_required', method: 'passkey' },
    });
    for (const token of [
      undefined,
      'garbage',
      ceremony({ purpose: 'login' }),
      ceremony({ sessionId: 's2' }),
      ceremony({ username: 'alice' }),
      ceremony({ expiresAt: core.clock.now() }),
    ])
      expect(await reauthentication.prove(ownerOf(dora), { passkey: { response, challengeToken: token } }, { ip })).toEqual({
        ok: false,
        error: { code: 'challenge_invalid' },
      });
    expect(checked).toEqual([]);
    expect(await reauthentication.prove(ownerOf(dora), { passkey: { response, challengeToken: ceremony() } }, { ip })).toEqual({ ok: true, value: undefined });
    expect(checked).toEqual([expect.objectContaining({ response, owner: 'dora', userVerification: true, challenge: expect.objectContaining({ id: 'c1' }) })]);
  });
});
