import { expect } from 'vitest';
import type { Harness } from '../harness.js';

/** `updateReturningBefore` (capability `updateReturnsBefore`). Skipped without the capability. */
export function beforeImageCases(h: Harness): void {
  const supported = () => h.adapter().capabilities.updateReturnsBefore === true;
  const increment = { kind: 'increment', column: 'n', path: [], amount: 1 } as const;

  h.test('before-image: returns the record before and after one update', async () => {
    if (!supported()) return;
    const ref = h.ref();
    const seeded = await h.seed(ref, { n: { type: 'Number' } }, { n: 1 });
    const later = h.later();
    const images = await h.adapter().updateReturningBefore?.(ref, seeded.objectId, [increment], later);
    expect(images?.before).toEqual(seeded);
    expect(images?.after).toEqual({ ...seeded, n: 2, updatedAt: later });
    expect(await h.adapter().updateReturningBefore?.(ref, 'missing000', [increment], later)).toBeNull();
  });

  h.test('before-image: concurrent updates each see the exact previous value', async () => {
    if (!supported()) return;
    const ref = h.ref();
    const seeded = await h.seed(ref, { n: { type: 'Number' } }, { n: 0 });
    const all = await Promise.all(
      Array.from({ length: 50 }, () => h.adapter().updateReturningBefore?.(ref, seeded.objectId, [increment], h.later())),
    );
    const befores = all.map((images) => images?.before.n).sort((a, b) => Number(a) - Number(b));
    expect(befores).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(all.every((images) => Number(images?.after.n) === Number(images?.before.n) + 1)).toBe(true);
  });
}
