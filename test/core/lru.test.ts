import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/core/lru.js';

describe('LruMap', () => {
  it('evicts the least recently used entry, a hit on the newest key included', () => {
    const lru = new LruMap<string, number>(3);
    lru.set('a', 1).set('b', 2).set('c', 3);
    expect(lru.get('c')).toBe(3); // already the newest: stays last
    expect(lru.get('a')).toBe(1); // now the newest
    expect(lru.get('a')).toBe(1);
    lru.set('d', 4); // b is the least recent
    expect([lru.has('a'), lru.has('b'), lru.has('c'), lru.has('d')]).toEqual([true, false, true, true]);
    lru.set('e', 5); // then c
    expect(lru.has('c')).toBe(false);
  });

  it('forgets the newest key when it is deleted or the map is cleared', () => {
    const lru = new LruMap<string, number>(2);
    lru.set('a', 1).set('b', 2);
    lru.delete('b');
    lru.set('b', 3);
    expect(lru.get('a')).toBe(1); // must move a behind b
    lru.set('c', 4); // evicts b
    expect([lru.has('a'), lru.has('b'), lru.has('c')]).toEqual([true, false, true]);
    lru.clear();
    lru.set('x', 1).set('y', 2);
    expect(lru.get('x')).toBe(1);
    lru.set('z', 3); // evicts y
    expect([lru.has('x'), lru.has('y'), lru.has('z')]).toEqual([true, false, true]);
  });

  it('treats undefined as an ordinary key', () => {
    const lru = new LruMap<string | undefined, number>(2);
    lru.set('a', 1).set(undefined, 2);
    expect(lru.get('a')).toBe(1);
    expect(lru.get(undefined)).toBe(2);
    lru.set('b', 3); // evicts a
    expect([lru.has('a'), lru.has(undefined), lru.has('b')]).toEqual([false, true, true]);
  });
});
