import { BoundedExpiringMap, BoundedMemo } from '../../../src/adapters/state/bounded-map';

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

describe('BoundedMemo', () => {
  it('answers what was remembered, and nothing else', () => {
    const memo = new BoundedMemo<string | null, number>(4);
    expect(memo.get('a')).toBeUndefined();
    expect(memo.remember('a', 1)).toBe(1);
    expect(memo.remember(null, 2)).toBe(2);
    expect(memo.get('a')).toBe(1);
    expect(memo.get(null)).toBe(2);
  });

  it('never holds more than its capacity: a full memo starts over', () => {
    const memo = new BoundedMemo<string, number>(3);
    for (let i = 0; i < 10; i += 1) memo.remember(`k${i}`, i);
    expect(memo.size).toBeLessThanOrEqual(3);
    expect(memo.get('k9')).toBe(9);
  });

  it('replaces the value of a key it holds without starting over, even when full', () => {
    const memo = new BoundedMemo<string, number>(2);
    memo.remember('a', 1);
    memo.remember('b', 2);
    memo.remember('a', 3);
    expect(memo.get('a')).toBe(3);
    expect(memo.get('b')).toBe(2);
  });

  it('hands back but does not keep a value under a key longer than its limit', () => {
    const memo = new BoundedMemo<string, number>(3, 4);
    expect(memo.remember('12345', 5)).toBe(5);
    expect(memo.get('12345')).toBeUndefined();
    expect(memo.size).toBe(0);
  });
});
