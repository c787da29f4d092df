import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import type { ObjectValue, Value } from '../../src/core/values.js';
import { valuesEqual } from '../../src/core/values.js';
import { applyOps, needsReadModifyWrite } from '../../src/operators/apply.js';
import type { FieldOp } from '../../src/storage/port.js';

const runs = Number(process.env.FC_RUNS ?? 100);
const inc = (column: string, amount: number, path: string[] = []): FieldOp => ({ kind: 'increment', column, path, amount });

describe('applyOps', () => {
  it('sets, unsets and treats null as missing', () => {
    const out = applyOps({ a: 1, b: 2 } as ObjectValue, [
      { kind: 'set', column: 'c', path: [], value: 'x' },
      { kind: 'unset', column: 'a', path: [] },
      { kind: 'set', column: 'b', path: [], value: null },
    ]);
    expect(out).toEqual({ c: 'x' });
  });

  it('increments from 0 and refuses non-numbers', () => {
    expect(applyOps({} as ObjectValue, [inc('n', 2)])).toEqual({ n: 2 });
    expect(applyOps({ n: 1.5 } as ObjectValue, [inc('n', -3)])).toEqual({ n: -1.5 });
    expect(() => applyOps({ n: 'x' } as ObjectValue, [inc('n', 1)])).toThrowError(/invalid type/);
  });

  it('adds, adds unique (also among the added values) and removes with typed equality', () => {
    const d = { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } as const;
    const start = { tags: ['a', d] } as ObjectValue;
    expect(applyOps(start, [{ kind: 'add', column: 'tags', path: [], objects: ['a'] }]).tags).toEqual(['a', d, 'a']);
    expect(applyOps(start, [{ kind: 'add_unique', column: 'tags', path: [], objects: ['a', 'b', 'b', { ...d }] }]).tags).toEqual(['a', d, 'b']);
    expect(applyOps(start, [{ kind: 'remove', column: 'tags', path: [], objects: [{ ...d }, 'zzz'] }]).tags).toEqual(['a']);
    expect(applyOps({} as ObjectValue, [{ kind: 'remove', column: 'tags', path: [], objects: ['a'] }]).tags).toEqual([]);
    expect(() => applyOps({ tags: 1 } as ObjectValue, [{ kind: 'add', column: 'tags', path: [], objects: [1] }])).toThrow();
  });

  it('updates paths without mutating the input', () => {
    const input = { address: { city: 'Lyon', zip: { code: 1 } }, items: [{ name: 'a' }] } as ObjectValue;
    const frozen = JSON.stringify(input);
    const out = applyOps(input, [
      { kind: 'set', column: 'address', path: ['city'], value: 'Paris' },
      inc('address', 2, ['zip', 'code']),
      { kind: 'set', column: 'items', path: ['0', 'name'], value: 'b' },
      { kind: 'set', column: 'fresh', path: ['x', 'y'], value: true },
      { kind: 'unset', column: 'address', path: ['nothing'] },
    ]);
    expect(out).toEqual({ address: { city: 'Paris', zip: { code: 3 } }, items: [{ name: 'b' }], fresh: { x: { y: true } } });
    expect(JSON.stringify(input)).toBe(frozen);
  });

  it('refuses paths through scalars and missing array elements', () => {
    const check = (ops: FieldOp[], record: ObjectValue) => {
      try {
        applyOps(record, ops);
      } catch (error) {
        return isSvcError(error) ? error.code : -1;
      }
      return 0;
    };
    expect(check([{ kind: 'set', column: 'a', path: ['b'], value: 1 }], { a: 'text' } as ObjectValue)).toBe(111);
    expect(check([{ kind: 'set', column: 'a', path: ['3', 'x'], value: 1 }], { a: [1] } as ObjectValue)).toBe(11005);
  });

  it('ignores relation operations', () => {
    expect(applyOps({ a: 1 } as ObjectValue, [{ kind: 'add_relation', column: 'r', targetClass: 'X', ids: ['1'] }])).toEqual({ a: 1 });
  });

  it('tells which updates need the current row', () => {
    expect(needsReadModifyWrite([inc('n', 1), { kind: 'set', column: 'a', path: [], value: 1 }])).toBe(false);
    expect(needsReadModifyWrite([{ kind: 'add', column: 'a', path: [], objects: [] }])).toBe(true);
    expect(needsReadModifyWrite([{ kind: 'set', column: 'a', path: ['b'], value: 1 }])).toBe(true);
  });

  it('AddUnique never yields duplicates, and Remove leaves none of the removed values (property)', () => {
    const scalar = fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constantFrom('a', 'b', 'c'), fc.boolean());
    fc.assert(
      fc.property(fc.array(scalar, { maxLength: 8 }), fc.array(scalar, { maxLength: 8 }), (existing, added) => {
        const start = [...new Map(existing.map((v) => [JSON.stringify(v), v])).values()];
        const after = applyOps({ xs: start } as ObjectValue, [{ kind: 'add_unique', column: 'xs', path: [], objects: added }]).xs as Value[];
        for (let i = 0; i < after.length; i++) for (let j = i + 1; j < after.length; j++) expect(valuesEqual(after[i], after[j])).toBe(false);
        for (const v of added) expect(after.some((x) => valuesEqual(x, v))).toBe(true);
        const removed = applyOps({ xs: after } as ObjectValue, [{ kind: 'remove', column: 'xs', path: [], objects: added }]).xs as Value[];
        for (const v of added) expect(removed.some((x) => valuesEqual(x, v))).toBe(false);
      }),
      { seed: 42, numRuns: runs },
    );
  });
});
