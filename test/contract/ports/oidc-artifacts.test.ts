import { InMemoryOidcArtifacts } from '../../../src/adapters/state/in-memory-oidc-artifacts';
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
