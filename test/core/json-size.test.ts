import { describe, expect, it } from 'vitest';
import { jsonLength } from '../../src/core/json-size.js';
import type { Json } from '../../src/core/wire-values.js';

describe('jsonLength', () => {
  it('equals the length of JSON.stringify for values without escapes', () => {
    const values: Json[] = [
      null, true, false, 0, -12.5, 1e21, 123456789, '', 'plain', [], {}, [1, 'a', null, [true]], { a: [1, 'xy'] },
      { __type: 'Object', className: 'Post', objectId: 'abc', createdAt: '2026-01-01 00:00:00', tags: ['x', 'y'], n: 3, nested: { deep: { er: [{}, []] } } },
      { 字段: '字', '': 0 },
    ];
    for (const value of values) expect(jsonLength(value), JSON.stringify(value)).toBe(JSON.stringify(value).length);
  });

  it('leaves string escapes out: never more than the JSON, at most 6x less', () => {
    for (const text of ['a"b', 'back\\slash', 'line\nbreak', '\u0001\u0002']) {
      const json = JSON.stringify({ text }).length;
      expect(jsonLength({ text })).toBeLessThanOrEqual(json);
      expect(jsonLength({ text }) * 6).toBeGreaterThanOrEqual(json);
    }
  });
});
