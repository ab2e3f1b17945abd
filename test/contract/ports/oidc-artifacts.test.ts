import { HmacOidcArtifacts } from '../../../src/adapters/crypto/hmac-oidc-artifacts';
import { InMemoryOidcArtifacts } from '../../../src/adapters/state/memory/in-memory-oidc-artifacts';
import { FixedClock } from '../../support/fakes';
import { oidcArtifactsContract } from './oidc-artifacts.contract';

oidcArtifactsContract('InMemoryOidcArtifacts', ({ clock }) => new InMemoryOidcArtifacts(clock));

describe('InMemoryOidcArtifacts is bounded', () => {
  it('never holds more records than its capacity: a flood evicts the oldest, the newest stay', async () => {
    const store = new InMemoryOidcArtifacts(new FixedClock(), 100);
    for (let i = 0; i < 5_000; i += 1) await store.save('Interaction', `i${i}`, { uid: `u${i}`, grantId: `g${i}` }, 3600);
    expect(store.size).toBeLessThanOrEqual(100);
    expect(await store.find('Interaction', 'i4999')).toEqual({ uid: 'u4999', grantId: 'g4999' });
    expect(await store.findByUid('Interaction', 'u4999')).toBeDefined();
    expect(await store.find('Interaction', 'i0')).toBeUndefined();
    expect(await store.findByUid('Interaction', 'u0')).toBeUndefined();
  });

  it('keeps its lookup indexes bounded too, so a flood of uids and grants cannot grow memory', async () => {
    const store = new InMemoryOidcArtifacts(new FixedClock(), 50);
    for (let i = 0; i < 5_000; i += 1) await store.save('Session', `s${i}`, { uid: `u${i}`, grantId: `g${i}`, userCode: `c${i}` }, 3600);
    const indexes = store as unknown as { byGrant: Map<string, unknown>; byUid: Map<string, unknown>; byUserCode: Map<string, unknown> };
    expect(indexes.byGrant.size).toBeLessThanOrEqual(100);
    expect(indexes.byUid.size).toBeLessThanOrEqual(100);
    expect(indexes.byUserCode.size).toBeLessThanOrEqual(100);
  });

  it('returns the memory of expired records on its own', async () => {
    const clock = new FixedClock();
    const store = new InMemoryOidcArtifacts(clock, 100_000);
    for (let i = 0; i < 1_000; i += 1) await store.save('AuthorizationCode', `old${i}`, { grantId: `g${i}` }, 60);
    clock.advance(61_000);
    for (let i = 0; i < 1_100; i += 1) await store.save('AuthorizationCode', `new${i}`, {}, 60);
    expect(store.size).toBeLessThan(1_200);
  });
});

const SECRET = 'a-test-secret-of-at-least-thirty-two-characters';
oidcArtifactsContract('HmacOidcArtifacts over InMemoryOidcArtifacts', ({ clock }) => new HmacOidcArtifacts(new InMemoryOidcArtifacts(clock), SECRET));

describe('HmacOidcArtifacts keeps token values out of the store', () => {
  const token = 'refresh-token-value-that-is-a-bearer-credential';

  it('stores a record under neither its id nor its jti, and the provider still finds it by its value', async () => {
    const inner = new InMemoryOidcArtifacts(new FixedClock());
    const store = new HmacOidcArtifacts(inner, SECRET);
    await store.save('RefreshToken', token, { jti: token, grantId: 'g-1', accountId: 'alice' }, 3600);
    expect(await store.find('RefreshToken', token)).toEqual({ jti: token, grantId: 'g-1', accountId: 'alice' });
    // What a copy of the store would show: nothing under the token, and no token in any record.
    expect(await inner.find('RefreshToken', token)).toBeUndefined();
    const records = (inner as unknown as { records: { keys(): IterableIterator<string>; get(k: string, now: number): { payload: string } } }).records;
    for (const key of records.keys()) {
      expect(key).not.toContain(token);
      expect(records.get(key, new FixedClock().now()).payload).not.toContain(token);
    }
  });

  it('gives back jti on lookups by uid too', async () => {
    const store = new HmacOidcArtifacts(new InMemoryOidcArtifacts(new FixedClock()), SECRET);
    await store.save('Session', 'session-id', { jti: 'session-id', uid: 'u-1' }, 60);
    expect(await store.findByUid('Session', 'u-1')).toEqual({ jti: 'session-id', uid: 'u-1' });
  });

  it('finds nothing saved under another SECRET (another gateway sharing the store by mistake)', async () => {
    const inner = new InMemoryOidcArtifacts(new FixedClock());
    await new HmacOidcArtifacts(inner, SECRET).save('Session', 'session-id', { jti: 'session-id', uid: 'u-2' }, 60);
    const other = new HmacOidcArtifacts(inner, 'another-secret-of-at-least-thirty-two-chars');
    expect(await other.find('Session', 'session-id')).toBeUndefined();
    expect(await other.findByUid('Session', 'u-2')).toBeUndefined();
  });
});
