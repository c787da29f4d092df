import { describe, expect, it } from 'vitest';
import { copyOf, merged } from '../../src/core/copy.js';

describe('copyOf and merged: spread semantics without the spread', () => {
  it('copies own enumerable properties and leaves the source alone', () => {
    const source = { a: 1, b: { c: 2 } };
    const copy = copyOf(source);
    expect(copy).toEqual(source);
    expect(copy).not.toBe(source);
    expect(copy.b).toBe(source.b);
    (copy as Record<string, unknown>)['d'] = 3;
    expect(source).not.toHaveProperty('d');
  });

  it('lets later keys win, as { ...base, ...over } does', () => {
    expect(merged({ a: 1, b: 2 }, { b: 3, c: 4 })).toEqual({ a: 1, b: 3, c: 4 });
    expect(Object.keys(merged({ a: 1, b: 2 }, { b: 3, c: 4 }))).toEqual(['a', 'b', 'c']);
  });

  it('keeps an own __proto__ key as data instead of changing the prototype', () => {
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "x": 1}') as Record<string, unknown>;
    for (const copy of [copyOf(hostile), merged(hostile, { y: 2 }), merged({ y: 2 }, hostile)] as Record<string, unknown>[]) {
      expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
      expect(Object.hasOwn(copy, '__proto__')).toBe(true);
      expect((copy as { polluted?: unknown }).polluted).toBeUndefined();
      expect(copy['x']).toBe(1);
    }
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
