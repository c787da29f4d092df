import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import type { StoredRecord, Value } from '../../src/core/values.js';
import { dateValue } from '../../src/core/values.js';
import type { ColumnSchema } from '../../src/query/plan.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import type { FieldOp, StorageAdapter } from '../../src/storage/port.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';

const runs = Number(process.env.FC_RUNS ?? 100);
const COLUMNS: Record<string, ColumnSchema> = { n: { type: 'Number' }, s: { type: 'String' }, tags: { type: 'Array' }, obj: { type: 'Object' } };

const scalar = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b', "it's", ''), fc.boolean(), fc.constant(null));
const element: fc.Arbitrary<Value> = fc.oneof(scalar, fc.constant({ __type: 'Date', iso: '2026-01-01T00:00:00.000Z' } as Value), fc.record({ k: scalar }));
const objPath = fc.constantFrom(['x'], ['y', 'z'], ['count']);

const op: fc.Arbitrary<FieldOp> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), column: fc.constant('n'), path: fc.constant([]), value: fc.integer({ min: -9, max: 9 }) }),
  fc.record({ kind: fc.constant('set' as const), column: fc.constant('s'), path: fc.constant([]), value: fc.constantFrom('q', "O'Hara") }),
  fc.record({ kind: fc.constant('unset' as const), column: fc.constantFrom('n', 's', 'tags', 'obj'), path: fc.constant([]) }),
  fc.record({ kind: fc.constant('increment' as const), column: fc.constant('n'), path: fc.constant([]), amount: fc.integer({ min: -3, max: 3 }) }),
  fc.record({ kind: fc.constantFrom('add' as const, 'add_unique' as const, 'remove' as const), column: fc.constant('tags'), path: fc.constant([]), objects: fc.array(element, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('set' as const), column: fc.constant('obj'), path: objPath, value: element }),
  fc.record({ kind: fc.constant('increment' as const), column: fc.constant('obj'), path: objPath, amount: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ kind: fc.constant('unset' as const), column: fc.constant('obj'), path: objPath }),
);

async function outcome(adapter: StorageAdapter, start: StoredRecord, steps: FieldOp[][]): Promise<unknown[]> {
  const ref = { namespace: 'diff', className: 'T' };
  await adapter.ensureColumns(ref, COLUMNS);
  await adapter.insert(ref, start);
  const out: unknown[] = [];
  for (const [i, ops] of steps.entries()) {
    try {
      out.push(await adapter.update(ref, start.objectId, ops, dateValue(10_000 + i)));
    } catch (error) {
      if (!isSvcError(error)) throw error;
      out.push(`error ${error.code}`);
    }
  }
  out.push(await adapter.get(ref, start.objectId));
  return out;
}

describe('field operations: SQLite matches the reference (memory) adapter', () => {
  it('on random sequences of updates (property)', async () => {
    const start = { objectId: 'r1', createdAt: dateValue(1), updatedAt: dateValue(1), n: 1, tags: ['a'], obj: { x: 1 } } as StoredRecord;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), async (steps) => {
        const memory = memoryStorage();
        const sqlite = openSqlite(':memory:');
        try {
          expect(await outcome(sqlite, start, steps)).toEqual(await outcome(memory, start, steps));
        } finally {
          await memory.close();
          await sqlite.close();
        }
      }),
      { seed: 42, numRuns: runs },
    );
  });
});
