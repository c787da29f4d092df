import { expect } from 'vitest';
import { type Harness, rejectionCode } from '../harness.js';

/** Declared indexes: listed in the schema, idempotent, and unique ones enforced (401). */
export function indexCases(h: Harness): void {
  const columns = { email: { type: 'String' }, org: { type: 'String' }, n: { type: 'Number' } } as const;

  h.test('indexes: a declared index is listed and creation is idempotent', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, columns);
    await h.adapter().createIndex(ref, { name: 'byN', columns: ['n'], unique: false });
    await h.adapter().createIndex(ref, { name: 'byN', columns: ['n'], unique: false });
    expect((await h.adapter().getSchema(ref))?.indexes).toEqual([{ name: 'byN', columns: ['n'], unique: false }]);
  });

  h.test('indexes: a unique index refuses duplicates on insert (401)', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, columns);
    await h.adapter().createIndex(ref, { name: 'email', columns: ['email'], unique: true });
    await h.adapter().insert(ref, h.record({ email: 'a@x' }));
    await h.adapter().insert(ref, h.record({ email: 'b@x' }));
    expect(await rejectionCode(() => h.adapter().insert(ref, h.record({ email: 'a@x' })))).toBe(401);
  });

  h.test('fix 11.13: indexes: missing values never conflict in a unique index', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, columns);
    await h.adapter().createIndex(ref, { name: 'email', columns: ['email'], unique: true });
    const first = h.record({ n: 1 });
    const second = h.record({ n: 2 });
    const nulled = h.record({ n: 3, email: null });
    for (const record of [first, second, nulled]) await h.adapter().insert(ref, record);
    // null and missing are the same, so the null email reads back missing (toEqual ignores undefined).
    for (const record of [first, second, nulled]) expect(await h.adapter().get(ref, record.objectId)).toEqual({ ...record, email: undefined });
    // The index is live: a real duplicate is still refused.
    await h.adapter().insert(ref, h.record({ email: 'a@x' }));
    expect(await rejectionCode(() => h.adapter().insert(ref, h.record({ email: 'a@x' })))).toBe(401);
  });

  h.test('indexes: an update into a duplicate is a 401 and changes nothing', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, columns);
    await h.adapter().createIndex(ref, { name: 'email', columns: ['email'], unique: true });
    await h.adapter().insert(ref, h.record({ email: 'a@x' }));
    const b = h.record({ email: 'b@x', n: 1 });
    await h.adapter().insert(ref, b);
    const ops = [
      { kind: 'increment', column: 'n', path: [], amount: 1 },
      { kind: 'set', column: 'email', path: [], value: 'a@x' },
    ] as const;
    expect(await rejectionCode(() => h.adapter().update(ref, b.objectId, ops, h.later()))).toBe(401);
    expect(await h.adapter().get(ref, b.objectId)).toEqual(b);
  });

  h.test('indexes: a unique index over several columns', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, columns);
    await h.adapter().createIndex(ref, { name: 'orgEmail', columns: ['org', 'email'], unique: true });
    await h.adapter().insert(ref, h.record({ org: 'o1', email: 'a@x' }));
    await h.adapter().insert(ref, h.record({ org: 'o2', email: 'a@x' }));
    expect(await rejectionCode(() => h.adapter().insert(ref, h.record({ org: 'o1', email: 'a@x' })))).toBe(401);
  });

  h.test('indexes: a unique index over existing duplicates is a 401 and is not created', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, columns);
    await h.adapter().insert(ref, h.record({ email: 'a@x' }));
    await h.adapter().insert(ref, h.record({ email: 'a@x' }));
    expect(await rejectionCode(() => h.adapter().createIndex(ref, { name: 'email', columns: ['email'], unique: true }))).toBe(401);
    expect((await h.adapter().getSchema(ref))?.indexes).toEqual([]);
    await h.adapter().insert(ref, h.record({ email: 'a@x' }));
  });
}
