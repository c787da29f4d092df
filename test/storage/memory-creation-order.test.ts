import { describe, expect, it } from 'vitest';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord } from '../../src/core/values.js';
import { ALL_RECORDS } from '../../src/query/plan.js';
import type { FindPlan } from '../../src/query/plan.js';
import { memoryStorage } from '../../src/storage/memory/index.js';

const ref = { namespace: 'app', className: 'Item' };
const rec = (id: string, ms: number): StoredRecord => ({ objectId: id, createdAt: dateValue(ms), updatedAt: dateValue(ms), n: ms }) as StoredRecord;
const page = (skip: number, limit: number): FindPlan => ({ where: ALL_RECORDS, order: [], skip, limit, projection: { kind: 'all' } });

// The memory adapter stops a default-order find once its page is full while its records are held in
// creation order; an insert out of that order must switch it back to sorting.
describe('memory adapter: default order with early-stopping pages', () => {
  it('pages records inserted in order without sorting, and sorts again after an out-of-order insert', async () => {
    const storage = memoryStorage();
    await storage.ensureColumns(ref, { n: { type: 'Number' } });
    for (const [id, ms] of [['a1', 1], ['a2', 2], ['a3', 3]] as const) await storage.insert(ref, rec(id, ms));
    expect((await storage.find(ref, page(1, 1))).map((r) => r.objectId)).toEqual(['a2']);
    await storage.insert(ref, rec('a0', 0));
    await storage.insert(ref, rec('b2', 2));
    expect((await storage.find(ref, page(0, 10))).map((r) => r.objectId)).toEqual(['a0', 'a1', 'a2', 'b2', 'a3']);
    expect((await storage.find(ref, page(1, 2))).map((r) => r.objectId)).toEqual(['a1', 'a2']);
  });

  it('treats equal createdAt by objectId, and keeps the order flag across a rolled-back transaction', async () => {
    const storage = memoryStorage();
    await storage.ensureColumns(ref, { n: { type: 'Number' } });
    await storage.insert(ref, rec('b', 5));
    await expect(
      storage.transaction(async (tx) => {
        await tx.insert(ref, rec('a', 5));
        throw new Error('roll back');
      }),
    ).rejects.toThrow();
    await storage.insert(ref, rec('c', 5));
    await storage.insert(ref, rec('a', 5));
    expect((await storage.find(ref, page(0, 2))).map((r) => r.objectId)).toEqual(['a', 'b']);
  });
});
