import { expect } from 'vitest';
import type { Value } from '../../../core/values.js';
import type { Harness } from '../harness.js';

/** Updates are atomic under concurrency: no lost increments, no duplicate AddUnique values. */
export function concurrencyCases(h: Harness): void {
  h.test('concurrency: 200 concurrent increments add exactly 200', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { n: { type: 'Number' } }, { n: 7 });
    await Promise.all(
      Array.from({ length: 200 }, () =>
        Promise.resolve().then(() => h.adapter().update(ref, record.objectId, [{ kind: 'increment', column: 'n', path: [], amount: 1 }], h.later())),
      ),
    );
    expect((await h.adapter().get(ref, record.objectId))?.n).toBe(207);
  });

  h.test('concurrency: concurrent add_unique never duplicates', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { tags: { type: 'Array' } }, { tags: [] });
    const values = Array.from({ length: 10 }, (_, i) => `v${i}`);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        Promise.resolve().then(() =>
          h.adapter().update(ref, record.objectId, [{ kind: 'add_unique', column: 'tags', path: [], objects: [values[i % 10]!, values[(i + 3) % 10]!] }], h.later()),
        ),
      ),
    );
    const tags = (await h.adapter().get(ref, record.objectId))?.tags as Value[];
    expect([...tags].sort()).toEqual([...values].sort());
  });

  h.test('concurrency: concurrent adds lose no element', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { tags: { type: 'Array' } });
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        Promise.resolve().then(() => h.adapter().update(ref, record.objectId, [{ kind: 'add', column: 'tags', path: [], objects: [i] }], h.later())),
      ),
    );
    const tags = (await h.adapter().get(ref, record.objectId))?.tags as number[];
    expect([...tags].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  h.test('concurrency: increments wait for an open transaction and are not lost', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { n: { type: 'Number' } }, { n: 0 });
    const inc = { kind: 'increment', column: 'n', path: [], amount: 1 } as const;
    const work = [
      h.adapter().capabilities.transactions
        ? h.adapter().transaction(async (tx) => {
            for (let i = 0; i < 10; i++) await tx.update(ref, record.objectId, [inc], h.later());
          })
        : Promise.resolve(),
      ...Array.from({ length: 50 }, () => Promise.resolve().then(() => h.adapter().update(ref, record.objectId, [inc], h.later()))),
    ];
    await Promise.all(work);
    expect((await h.adapter().get(ref, record.objectId))?.n).toBe(h.adapter().capabilities.transactions ? 60 : 50);
  });
}
