import { expect } from 'vitest';
import type { Value } from '../../../core/values.js';
import type { ColumnSchema } from '../../../query/plan.js';
import type { FieldOp } from '../../port.js';
import { type Harness, rejectionCode } from '../harness.js';

const COLUMNS: Record<string, ColumnSchema> = {
  n: { type: 'Number' },
  s: { type: 'String' },
  tags: { type: 'Array' },
  obj: { type: 'Object' },
};

/** Every field operation, top-level and through dot-key paths, and all-or-nothing updates. */
export function fieldOpCases(h: Harness): void {
  const apply = async (fields: Record<string, Value>, ops: FieldOp[]) => {
    const ref = h.ref();
    const record = await h.seed(ref, COLUMNS, fields);
    const after = await h.adapter().update(ref, record.objectId, ops, h.later());
    expect(await h.adapter().get(ref, record.objectId)).toEqual(after);
    return after as unknown as Record<string, Value>;
  };

  h.test('ops: set and unset', async () => {
    const after = await apply({ n: 1, s: 'a' }, [
      { kind: 'set', column: 'n', path: [], value: 2 },
      { kind: 'unset', column: 's', path: [] },
    ]);
    expect(after.n).toBe(2);
    expect(after).not.toHaveProperty('s');
  });

  h.test('ops: increment starts at 0 and accepts negative and fractional amounts', async () => {
    expect((await apply({}, [{ kind: 'increment', column: 'n', path: [], amount: 5 }])).n).toBe(5);
    expect((await apply({ n: 10 }, [{ kind: 'increment', column: 'n', path: [], amount: -3 }])).n).toBe(7);
    expect((await apply({ n: 1 }, [{ kind: 'increment', column: 'n', path: [], amount: 0.5 }])).n).toBe(1.5);
  });

  h.test('ops: add appends, keeping duplicates', async () => {
    expect((await apply({ tags: ['a'] }, [{ kind: 'add', column: 'tags', path: [], objects: ['a', 'b'] }])).tags).toEqual(['a', 'a', 'b']);
    expect((await apply({}, [{ kind: 'add', column: 'tags', path: [], objects: [1] }])).tags).toEqual([1]);
  });

  h.test('ops: add_unique appends only absent values, typed values compared by identity', async () => {
    const p = { __type: 'Pointer', className: 'Post', objectId: 'p1' } as const;
    const after = await apply({ tags: ['a', p] }, [{ kind: 'add_unique', column: 'tags', path: [], objects: ['a', 'b', 'b', { ...p }] }]);
    expect([...(after.tags as Value[])].sort()).toEqual(['a', 'b', p].sort());
    expect((after.tags as Value[]).length).toBe(3);
  });

  h.test('ops: remove drops every occurrence', async () => {
    const after = await apply({ tags: ['a', 'b', 'a', { k: 1 }] }, [{ kind: 'remove', column: 'tags', path: [], objects: ['a', { k: 1 }] }]);
    expect(after.tags).toEqual(['b']);
  });

  h.test('ops: dot-key paths set, unset and increment inside Object columns', async () => {
    const after = await apply({ obj: { city: 'Lyon', stats: { visits: 1 }, drop: true } }, [
      { kind: 'set', column: 'obj', path: ['city'], value: 'Paris' },
      { kind: 'increment', column: 'obj', path: ['stats', 'visits'], amount: 2 },
      { kind: 'unset', column: 'obj', path: ['drop'] },
      { kind: 'add', column: 'obj', path: ['list'], objects: [1] },
    ]);
    expect(after.obj).toEqual({ city: 'Paris', stats: { visits: 3 }, list: [1] });
  });

  h.test('ops: an index path updates an element of an Array column', async () => {
    const after = await apply({ tags: [{ name: 'a' }, { name: 'b' }] }, [{ kind: 'set', column: 'tags', path: ['1', 'name'], value: 'c' }]);
    expect(after.tags).toEqual([{ name: 'a' }, { name: 'c' }]);
  });

  h.test('ops: a failing operation leaves the whole record unchanged (111)', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, COLUMNS, { n: 1, obj: { text: 'x' } });
    const code = await rejectionCode(() =>
      h.adapter().update(
        ref,
        record.objectId,
        [
          { kind: 'set', column: 'n', path: [], value: 2 },
          { kind: 'increment', column: 'obj', path: ['text'], amount: 1 },
        ],
        h.later(),
      ),
    );
    expect(code).toBe(111);
    expect(await h.adapter().get(ref, record.objectId)).toEqual(record);
  });

  h.test('ops: an increment that would leave the double range is refused (111) and changes nothing', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, COLUMNS, { n: Number.MAX_VALUE, obj: { deep: -Number.MAX_VALUE } });
    const adapter = h.adapter();
    const tries: FieldOp[][] = [
      [{ kind: 'increment', column: 'n', path: [], amount: Number.MAX_VALUE }],
      [{ kind: 'set', column: 's', path: [], value: 'x' }, { kind: 'increment', column: 'n', path: [], amount: Number.MAX_VALUE }],
      [{ kind: 'increment', column: 'obj', path: ['deep'], amount: -Number.MAX_VALUE }],
    ];
    for (const ops of tries) {
      expect(await rejectionCode(() => adapter.update(ref, record.objectId, ops, h.later())), JSON.stringify(ops)).toBe(111);
      if (adapter.updateWithoutReturning) expect(await rejectionCode(() => adapter.updateWithoutReturning!(ref, record.objectId, ops, h.later()))).toBe(111);
    }
    expect(await adapter.get(ref, record.objectId)).toEqual(record);
    // Within the range (and on a missing record) an increment behaves as ever.
    expect((await adapter.update(ref, record.objectId, [{ kind: 'increment', column: 'n', path: [], amount: -Number.MAX_VALUE }], h.later()))?.n).toBe(0);
    expect(await adapter.update(ref, 'missing000', [{ kind: 'increment', column: 'n', path: [], amount: Number.MAX_VALUE }], h.later())).toBeNull();
  });

  h.test('ops: several operations on several columns apply together', async () => {
    const after = await apply({ n: 1, tags: ['x'] }, [
      { kind: 'increment', column: 'n', path: [], amount: 1 },
      { kind: 'add_unique', column: 'tags', path: [], objects: ['y'] },
      { kind: 'set', column: 's', path: [], value: "it's \"quoted\"; DROP TABLE x; --" },
    ]);
    expect(after).toMatchObject({ n: 2, tags: ['x', 'y'], s: "it's \"quoted\"; DROP TABLE x; --" });
  });

  h.test('ops: fix 11.1: an unset of a column the table never had is a no-op', async () => {
    const after = await apply({ n: 1 }, [
      { kind: 'unset', column: 'never', path: [] },
      { kind: 'unset', column: 'nor', path: ['deep'] },
      { kind: 'set', column: 'n', path: [], value: 2 },
    ]);
    expect(after.n).toBe(2);
    expect(after).not.toHaveProperty('never');
  });
}
