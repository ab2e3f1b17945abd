import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import { PasskeyOwners, type Owner } from '../../../../src/application/passkeys/passkey-owner';
import { err, ok, type Result } from '../../../../src/domain/result';
import { aUser } from '../../../support/builders';
import { makeCore, signIn } from '../../../support/core';
import { FakeUserStore } from '../../../support/fakes';

const ip = '198.51.100.7';

/** alice with a full session, bob with a pending one (TOTP owed), and the owners over the core's stores. */
async function setup() {
  const alice = aUser().named('alice').withPassword('pw').build();
  const bob = aUser().named('bob').withPassword('pw').withTotp().build();
  const core = makeCore([alice, bob]);
  const owners = new PasskeyOwners(core.authenticator, core.users);
  return { core, owners, alice: await signIn(core, 'alice', 'pw'), bobPending: await signIn(core, 'bob', 'pw') };
}

/** A step that records whom it ran for and answers `answer`. */
function recordingStep<R extends Result<unknown, unknown>>(answer: R) {
  const ran: Owner[] = [];
  const step = async (owner: Owner): Promise<R> => {
    ran.push(owner);
    return answer;
  };
  return { ran, step };
}

describe('PasskeyOwners.forOwnerFromThisSite', () => {
  it('runs the step for the account and session of a full session from this site, and answers what it answers', async () => {
    const { owners, alice } = await setup();
    const { ran, step } = recordingStep(ok({ done: true }));
    const result = await owners.forOwnerFromThisSite({ sessionToken: alice.token, fromThisSite: true, ip }, step);
    expect(result).toEqual({ ok: true, value: { done: true } });
    expect(ran.map((o) => [o.account.username, o.session.id])).toEqual([['alice', alice.session.id]]);
  });

  it('hands back the step’s own refusal unchanged', async () => {
    const { owners, alice } = await setup();
    const { step } = recordingStep(err({ code: 'passkey_not_found' } as const));
    expect(await owners.forOwnerFromThisSite({ sessionToken: alice.token, fromThisSite: true, ip }, step)).toEqual({
      ok: false,
      error: { code: 'passkey_not_found' },
    });
  });

  it('refuses a request from another site before anything else, even with a good session and a store that is down', async () => {
    const { core, alice } = await setup();
    const down = new FakeUserStore([]);
    down.down = true;
    const { ran, step } = recordingStep(ok(1));
    for (const owners of [new PasskeyOwners(core.authenticator, core.users), new PasskeyOwners(core.authenticator, down)]) {
      expect(await owners.forOwnerFromThisSite({ sessionToken: alice.token, fromThisSite: false, ip }, step)).toEqual({
        ok: false,
        error: { code: 'cross_site_request' },
      });
    }
    expect(ran).toEqual([]);
  });

  it('answers not_logged_in without a session, or with one still owing its TOTP code, and never runs the step', async () => {
    const { owners, bobPending } = await setup();
    const { ran, step } = recordingStep(ok(1));
    for (const sessionToken of [undefined, bobPending.token, 'not-a-sealed-session']) {
      expect(await owners.forOwnerFromThisSite({ sessionToken, fromThisSite: true, ip }, step)).toEqual({ ok: false, error: { code: 'not_logged_in' } });
    }
    expect(ran).toEqual([]);
  });

  it('answers store_unavailable when the account cannot be read, and when the step meets an outage', async () => {
    const { core, owners, alice } = await setup();
    const down = new FakeUserStore([aUser().named('alice').withPassword('pw').build()]);
    down.down = true;
    const { ran, step } = recordingStep(ok(1));
    expect(await new PasskeyOwners(core.authenticator, down).forOwnerFromThisSite({ sessionToken: alice.token, fromThisSite: true, ip }, step)).toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
    expect(ran).toEqual([]);
    const outage = async (): Promise<Result<number, never>> => Promise.reject(new StateStoreUnavailableError('fake'));
    expect(await owners.forOwnerFromThisSite({ sessionToken: alice.token, fromThisSite: true, ip }, outage)).toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
  });

  it('throws on what the step throws that is no outage', async () => {
    const { owners, alice } = await setup();
    const bug = new TypeError('boom');
    const step = async (): Promise<Result<number, never>> => Promise.reject(bug);
    await expect(owners.forOwnerFromThisSite({ sessionToken: alice.token, fromThisSite: true, ip }, step)).rejects.toBe(bug);
  });
});

describe('PasskeyOwners.forOwner', () => {
  it('runs the step for the owner of a full session', async () => {
    const { owners, alice } = await setup();
    const { ran, step } = recordingStep(ok('read'));
    expect(await owners.forOwner({ sessionToken: alice.token, ip }, step)).toEqual({ ok: true, value: 'read' });
    expect(ran.map((o) => o.account.username)).toEqual(['alice']);
  });

  it('answers not_logged_in (never cross_site_request) without a full session', async () => {
    const { owners, bobPending } = await setup();
    const { ran, step } = recordingStep(ok(1));
    for (const sessionToken of [undefined, bobPending.token]) {
      expect(await owners.forOwner({ sessionToken, ip }, step)).toEqual({ ok: false, error: { code: 'not_logged_in' } });
    }
    expect(ran).toEqual([]);
  });

  it('goes by the session alone: a site answer its caller does not declare is not read', async () => {
    const { owners, alice } = await setup();
    const { ran, step } = recordingStep(ok(1));
    // A wider object than the declared request, as a route could pass one: only the session counts.
    const request = { sessionToken: alice.token, ip, fromThisSite: false };
    expect(await owners.forOwner(request, step)).toEqual({ ok: true, value: 1 });
    expect(ran).toHaveLength(1);
  });

  it('answers store_unavailable on an outage and throws on anything else', async () => {
    const { core, owners, alice } = await setup();
    const down = new FakeUserStore([]);
    down.down = true;
    const { step } = recordingStep(ok(1));
    expect(await new PasskeyOwners(core.authenticator, down).forOwner({ sessionToken: alice.token, ip }, step)).toEqual({
      ok: false,
      error: { code: 'store_unavailable' },
    });
    const bug = new RangeError('bad');
    await expect(owners.forOwner({ sessionToken: alice.token, ip }, async (): Promise<Result<number, never>> => Promise.reject(bug))).rejects.toBe(bug);
  });
});
