import { expect } from 'vitest';
import { type Harness, yieldToEventLoop } from '../harness.js';

/** All-or-nothing transactions, isolation from other callers, nesting. Skipped without the capability. */
export function transactionCases(h: Harness): void {
  const supported = () => h.adapter().capabilities.transactions;

  h.test('transactions: writes commit together', async () => {
    if (!supported()) return;
    const ref = h.ref();
    const a = h.record({ n: 1 });
    const b = h.record({ n: 2 });
    const result = await h.adapter().transaction(async (tx) => {
      await tx.ensureColumns(ref, { n: { type: 'Number' } });
      await tx.insert(ref, a);
      await tx.insert(ref, b);
      return 'done';
    });
    expect(result).toBe('done');
    expect(await h.adapter().get(ref, a.objectId)).toEqual(a);
    expect(await h.adapter().get(ref, b.objectId)).toEqual(b);
  });

  h.test('transactions: a throwing work rolls every write back', async () => {
    if (!supported()) return;
    const ref = h.ref();
    const kept = await h.seed(ref, { n: { type: 'Number' } }, { n: 1 });
    const fresh = h.record({ n: 5 });
    const failure = new Error('boom');
    await expect(
      h.adapter().transaction(async (tx) => {
        await tx.ensureColumns(ref, { extra: { type: 'String' } });
        await tx.insert(ref, fresh);
        await tx.update(ref, kept.objectId, [{ kind: 'increment', column: 'n', path: [], amount: 10 }], h.later());
        await tx.ensureColumns(h.ref('Other'), { x: { type: 'Number' } });
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await h.adapter().get(ref, fresh.objectId)).toBeNull();
    expect(await h.adapter().get(ref, kept.objectId)).toEqual(kept);
    expect((await h.adapter().getSchema(ref))?.columns).toEqual({ n: { type: 'Number' } });
    expect(await h.adapter().getSchema(h.ref('Other'))).toBeNull();
  });

  h.test('transactions: a delete inside a rolled-back transaction is undone', async () => {
    if (!supported()) return;
    const ref = h.ref();
    const kept = await h.seed(ref, {});
    await expect(
      h.adapter().transaction(async (tx) => {
        await tx.delete(ref, kept.objectId);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect(await h.adapter().get(ref, kept.objectId)).toEqual(kept);
  });

  h.test('transactions: other callers never see uncommitted writes', async () => {
    if (!supported()) return;
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, {});
    const record = h.record();
    let inserted!: () => void;
    const insertedSignal = new Promise<void>((resolve) => (inserted = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const tx = h.adapter().transaction(async (t) => {
      await t.insert(ref, record);
      inserted();
      await released;
      throw new Error('rollback');
    });
    await insertedSignal;
    const outside = Promise.resolve(h.adapter().get(ref, record.objectId));
    await yieldToEventLoop();
    release();
    await expect(tx).rejects.toThrow('rollback');
    expect(await outside).toBeNull();
    expect(await h.adapter().get(ref, record.objectId)).toBeNull();
  });

  h.test('transactions: a nested transaction that fails rolls back only its own writes', async () => {
    if (!supported()) return;
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, {});
    const outer = h.record();
    const inner = h.record();
    await h.adapter().transaction(async (tx) => {
      await tx.insert(ref, outer);
      await expect(
        tx.transaction(async (nested) => {
          await nested.insert(ref, inner);
          throw new Error('inner');
        }),
      ).rejects.toThrow('inner');
    });
    expect(await h.adapter().get(ref, outer.objectId)).toEqual(outer);
    expect(await h.adapter().get(ref, inner.objectId)).toBeNull();
  });
}
