import { expect } from 'vitest';
import type { Harness } from '../harness.js';

/** `updateWithoutReturning` (optional). Skipped where the adapter has none. */
export function updateWithoutReturningCases(h: Harness): void {
  const increment = { kind: 'increment', column: 'n', path: [], amount: 1 } as const;

  h.test('update without returning: applies the ops and answers whether the record exists', async () => {
    const adapter = h.adapter();
    if (!adapter.updateWithoutReturning) return;
    const ref = h.ref();
    const seeded = await h.seed(ref, { n: { type: 'Number' }, note: { type: 'String' } }, { n: 1, note: 'a' });
    const later = h.later();
    expect(await adapter.updateWithoutReturning(ref, seeded.objectId, [increment, { kind: 'unset', column: 'note', path: [] }], later)).toBe(true);
    const { note: _note, ...rest } = seeded;
    expect(await adapter.get(ref, seeded.objectId)).toEqual({ ...rest, n: 2, updatedAt: later });
    expect(await adapter.updateWithoutReturning(ref, 'missing000', [increment], h.later())).toBe(false);
    expect(await adapter.get(ref, 'missing000')).toBeNull();
  });

  h.test('update without returning: 100 concurrent increments all land', async () => {
    const adapter = h.adapter();
    if (!adapter.updateWithoutReturning) return;
    const ref = h.ref();
    const seeded = await h.seed(ref, { n: { type: 'Number' } }, { n: 0 });
    const answers = await Promise.all(Array.from({ length: 100 }, () => adapter.updateWithoutReturning!(ref, seeded.objectId, [increment], h.later())));
    expect(answers.every((existed) => existed)).toBe(true);
    expect((await adapter.get(ref, seeded.objectId))?.n).toBe(100);
  });
}
