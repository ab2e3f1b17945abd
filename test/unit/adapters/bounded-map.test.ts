import { BoundedExpiringMap } from '../../../src/adapters/state/bounded-map';

describe('BoundedExpiringMap', () => {
  it('reads an entry until its expiry and not at or after it', () => {
    const map = new BoundedExpiringMap<string>(10);
    map.set('k', 'v', 100);
    expect(map.get('k', 99)).toBe('v');
    expect(map.get('k', 100)).toBeUndefined();
    expect(map.size).toBe(0);
  });

  it('drops the oldest insertion when full', () => {
    const map = new BoundedExpiringMap<number>(2);
    map.set('a', 1, 1000);
    map.set('b', 2, 1000);
    map.set('c', 3, 1000);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it('treats a re-inserted key as the youngest', () => {
    const map = new BoundedExpiringMap<number>(2);
    map.set('a', 1, 1000);
    map.set('b', 2, 1000);
    map.set('a', 3, 1000);
    map.set('c', 4, 1000);
    expect([...map.keys()]).toEqual(['a', 'c']);
    expect(map.get('a', 0)).toBe(3);
  });

  it('sweeps expired entries on request', () => {
    const map = new BoundedExpiringMap<number>(10);
    map.set('old', 1, 10);
    map.set('new', 2, 1000);
    map.sweep(10);
    expect([...map.keys()]).toEqual(['new']);
  });
});
