import { expect } from 'vitest';
import type { Value } from '../../../core/values.js';
import type { ColumnSchema } from '../../../query/plan.js';
import type { Harness } from '../harness.js';

const COLUMNS: Record<string, ColumnSchema> = {
  text: { type: 'String' },
  num: { type: 'Number' },
  flag: { type: 'Boolean' },
  when: { type: 'Date' },
  owner: { type: 'Pointer', targetClass: '_User' },
  place: { type: 'GeoPoint' },
  file: { type: 'File' },
  list: { type: 'Array' },
  doc: { type: 'Object' },
};

const SAMPLES: Array<Record<string, Value>> = [
  {
    text: 'Sean Plott',
    num: 1337,
    flag: true,
    when: { __type: 'Date', iso: '2026-01-02T03:04:05.678Z' },
    owner: { __type: 'Pointer', className: '_User', objectId: 'u1' },
    place: { __type: 'GeoPoint', latitude: 50.934755, longitude: -24.52065 },
    file: { __type: 'File', filename: 'a.txt', url: 'https://cdn.example/a.txt', cdn: 'upyun' },
    list: [1, 'two', null, { __type: 'Date', iso: '1999-12-31T23:59:59.999Z' }, [true]],
    doc: { nested: { deep: [1, { x: 'y' }] }, at: { __type: 'Pointer', className: 'Post', objectId: 'p' } },
  },
  { text: '', num: 0, flag: false, list: [], doc: {} },
  { text: "O'Brien \"quoted\" ; DROP TABLE x; -- 中文 🎉 \u0000", num: -0.000001, place: { __type: 'GeoPoint', latitude: -90, longitude: 180 } },
  { num: Number.MAX_SAFE_INTEGER, when: { __type: 'Date', iso: '1970-01-01T00:00:00.000Z' } },
  { num: -1e300, text: 'x'.repeat(10_000) },
];

/** Every column type survives a write and a read unchanged, including awkward values. */
export function valueCases(h: Harness): void {
  h.test('values: every column type round-trips', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, COLUMNS);
    for (const fields of SAMPLES) {
      const record = h.record(fields);
      await h.adapter().insert(ref, record);
      expect(await h.adapter().get(ref, record.objectId)).toEqual(record);
    }
  });

  h.test('values: createdAt and updatedAt keep millisecond precision', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, {});
    const record = h.record({}, Date.UTC(2026, 4, 6, 7, 8, 9, 123));
    await h.adapter().insert(ref, record);
    const got = await h.adapter().get(ref, record.objectId);
    expect(got?.createdAt.iso).toBe('2026-05-06T07:08:09.123Z');
    expect(got?.updatedAt.iso).toBe('2026-05-06T07:08:09.123Z');
  });

  h.test('values: typed values written by update round-trip', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, COLUMNS);
    const fields = SAMPLES[0]!;
    const after = await h.adapter().update(
      ref,
      record.objectId,
      Object.entries(fields).map(([column, value]) => ({ kind: 'set', column, path: [], value })),
      h.later(),
    );
    expect(after).toMatchObject(fields);
    expect(await h.adapter().get(ref, record.objectId)).toEqual(after);
  });
}
