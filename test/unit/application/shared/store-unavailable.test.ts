import { PasswordHasherBusyError } from '../../../../src/application/ports/password-hasher';
import { StateStoreUnavailableError } from '../../../../src/application/ports/state-store-unavailable';
import { UserStoreUnavailableError } from '../../../../src/application/ports/user-store';
import { unavailableAsError, valueOrUnavailable } from '../../../../src/application/store-unavailable';
import { err, ok, type Result } from '../../../../src/domain/result';

const outages: ReadonlyArray<[string, () => Error]> = [
  ['a user store is down', () => new UserStoreUnavailableError('fake')],
  ['a state store is down', () => new StateStoreUnavailableError('fake')],
  ['the password hasher is overloaded', () => new PasswordHasherBusyError()],
];

describe('unavailableAsError', () => {
  it('hands back what the work answers, a success or an expected failure, unchanged', async () => {
    const success = await unavailableAsError(async (): Promise<Result<number, { readonly code: 'nope' }>> => ok(42));
    const failure = await unavailableAsError(async (): Promise<Result<number, { readonly code: 'nope' }>> => err({ code: 'nope' }));
    expect(success).toEqual({ ok: true, value: 42 });
    expect(failure).toEqual({ ok: false, error: { code: 'nope' } });
  });

  it.each(outages)('answers store_unavailable when %s', async (_, outage) => {
    const result = await unavailableAsError(async (): Promise<Result<number, never>> => Promise.reject(outage()));
    expect(result).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('catches an outage the work throws before its first await too', async () => {
    const result = await unavailableAsError((): Promise<Result<number, never>> => {
      throw new StateStoreUnavailableError('fake');
    });
    expect(result).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('rethrows any other error instead of hiding a bug as an outage', async () => {
    const bug = new TypeError('x is undefined');
    await expect(unavailableAsError(async (): Promise<Result<number, never>> => Promise.reject(bug))).rejects.toBe(bug);
    await expect(
      unavailableAsError((): Promise<Result<number, never>> => {
        throw bug;
      }),
    ).rejects.toBe(bug);
  });

  it('starts the work at once, in the caller’s turn (a shared in-flight check is joined before anything else runs)', async () => {
    const started: string[] = [];
    const pending = unavailableAsError(async () => {
      started.push('work');
      return ok(1);
    });
    started.push('caller');
    await pending;
    expect(started).toEqual(['work', 'caller']);
  });
});

describe('valueOrUnavailable', () => {
  it('wraps the value a store call answers as a success', async () => {
    expect(await valueOrUnavailable(async () => 'grant')).toEqual({ ok: true, value: 'grant' });
    expect(await valueOrUnavailable(async () => undefined)).toEqual({ ok: true, value: undefined });
  });

  it.each(outages)('answers store_unavailable when %s', async (_, outage) => {
    expect(await valueOrUnavailable(async () => Promise.reject(outage()))).toEqual({ ok: false, error: { code: 'store_unavailable' } });
  });

  it('rethrows any other error', async () => {
    const bug = new RangeError('bad');
    await expect(valueOrUnavailable(async () => Promise.reject(bug))).rejects.toBe(bug);
  });
});
