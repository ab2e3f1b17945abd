import { InMemoryPasskeyCredentials } from '../../../../src/adapters/state/memory/in-memory-passkey-credentials';
import type { PasskeyCredentials } from '../../../../src/application/passkeys/passkey-credentials';
import type { Owner, PasskeyOwners } from '../../../../src/application/passkeys/passkey-owner';
import type { Reauthentication, ReauthenticationError } from '../../../../src/application/passkeys/reauthentication';
import { ChangePasskeyUseCase } from '../../../../src/application/passkeys/change-passkey';
import { err, ok, type Result } from '../../../../src/domain/result';
import type { Account } from '../../../../src/domain/account';
import { identityOf } from '../../../../src/domain/session';
import { aPasskeyOf, aUser } from '../../../support/builders';
import { RecordingAuditLog } from '../../../support/fakes';

/** The owner step as PasskeyOwners runs it for a logged-in `account` (the session check has its own tests). */
function ownedBy(account: Account): PasskeyOwners {
  const owner: Owner = {
    kind: 'owner',
    account,
    session: { ...identityOf(account, 'username', false), id: 's1', issuedAt: 0, expiresAt: 1, totpPending: false, proven: {} },
  };
  return { forOwnerFromThisSite: (_request: unknown, step: (o: Owner) => Promise<unknown>) => step(owner) } as unknown as PasskeyOwners;
}

/** A store whose every answer waits for the next turn of the event loop, as a remote one does. */
function remote(store: PasskeyCredentials): PasskeyCredentials {
  const later = <T>(work: () => Promise<T>): Promise<T> => new Promise((resolve) => setImmediate(resolve)).then(work);
  return {
    add: (p, max) => later(() => store.add(p, max)),
    find: (id) => later(() => store.find(id)),
    list: (username) => later(() => store.list(username)),
    rename: (username, id, name) => later(() => store.rename(username, id, name)),
    remove: (username, id, keep) => later(() => store.remove(username, id, keep)),
    recordUse: (id, expected, counter, at) => later(() => store.recordUse(id, expected, counter, at)),
  };
}

/** The re-authentication step's answer, fixed (Reauthentication has its own tests). */
function proving(answer: Result<void, ReauthenticationError> = ok(undefined)): Reauthentication {
  return { prove: () => Promise.resolve(answer) } as unknown as Reauthentication;
}

const remove = (id: string) => ({ fromThisSite: true, id, change: { kind: 'remove', proof: { password: 'pw' } } as const, ip: '192.0.2.1', sessionToken: 't' });

describe('ChangePasskeyUseCase, removal', () => {
  const dora = aUser().named('dora').withPasskeyOnly().build();
  const alice = aUser().named('alice').build();

  it('removes a passkey of a passkey-only account while another stays, then keeps the last one', async () => {
    const store = new InMemoryPasskeyCredentials();
    await store.add(aPasskeyOf('dora', 'k1'), 20);
    await store.add(aPasskeyOf('dora', 'k2'), 20);
    const change = new ChangePasskeyUseCase(ownedBy(dora), proving(), store, new RecordingAuditLog());
    expect(await change.execute(remove('k1'))).toEqual({ ok: true, value: { changed: true } });
    expect(await change.execute(remove('k2'))).toEqual({ ok: false, error: { code: 'last_passkey' } });
    expect((await store.list('dora')).map((p) => p.id)).toEqual(['k2']);
  });

  it('of two removals at once of the last two passkeys of a passkey-only account, refuses one', async () => {
    const store = new InMemoryPasskeyCredentials();
    await store.add(aPasskeyOf('dora', 'k1'), 20);
    await store.add(aPasskeyOf('dora', 'k2'), 20);
    const change = new ChangePasskeyUseCase(ownedBy(dora), proving(), remote(store), new RecordingAuditLog());
    const answers = await Promise.all([change.execute(remove('k1')), change.execute(remove('k2'))]);
    expect(answers.map((a) => (a.ok ? 'removed' : a.error.code)).sort()).toEqual(['last_passkey', 'removed']);
    expect(await store.list('dora')).toHaveLength(1);
  });

  it('lets an account with a password remove its last passkey, and finds no passkey of another account', async () => {
    const store = new InMemoryPasskeyCredentials();
    await store.add(aPasskeyOf('alice', 'a1'), 20);
    await store.add(aPasskeyOf('dora', 'd1'), 20);
    const change = new ChangePasskeyUseCase(ownedBy(alice), proving(), store, new RecordingAuditLog());
    expect(await change.execute(remove('d1'))).toEqual({ ok: false, error: { code: 'passkey_not_found' } });
    expect(await change.execute(remove('a1'))).toEqual({ ok: true, value: { changed: true } });
    expect(await store.list('alice')).toEqual([]);
  });

  it('removes nothing when the person does not prove again who they are, and audits nothing', async () => {
    const store = new InMemoryPasskeyCredentials();
    await store.add(aPasskeyOf('alice', 'a1'), 20);
    const audit = new RecordingAuditLog();
    const change = new ChangePasskeyUseCase(ownedBy(alice), proving(err({ code: 'invalid_credentials' })), store, audit);
    expect(await change.execute(remove('a1'))).toEqual({ ok: false, error: { code: 'invalid_credentials' } });
    expect(await store.list('alice')).toHaveLength(1);
    expect(audit.events).toEqual([]);
  });
});
