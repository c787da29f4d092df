import { expect } from 'vitest';
import type { Value } from '../../../core/values.js';
import { type Harness, rejectionCode } from '../harness.js';

/** Tables, insert/get/update/delete, copies in and out, projections, namespaces. */
export function crudCases(h: Harness): void {
  h.test('crud: a table exists only after ensureColumns', async () => {
    const ref = h.ref();
    expect(await h.adapter().getSchema(ref)).toBeNull();
    const schema = await h.adapter().ensureColumns(ref, { score: { type: 'Number' } });
    expect(schema.className).toBe('Item');
    expect(schema.columns).toEqual({ score: { type: 'Number' } });
    expect(await h.adapter().getSchema(ref)).toEqual(schema);
  });

  h.test('crud: insert then get returns an equal record', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { name: { type: 'String' }, score: { type: 'Number' } }, { name: 'Sean', score: 1337 });
    expect(await h.adapter().get(ref, record.objectId)).toEqual(record);
  });

  h.test('crud: get of a missing record or table is null', async () => {
    const ref = h.ref();
    expect(await h.adapter().get(ref, 'nope')).toBeNull();
    await h.adapter().ensureColumns(ref, {});
    expect(await h.adapter().get(ref, 'nope')).toBeNull();
  });

  h.test('crud: update returns the record after the update', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { score: { type: 'Number' }, name: { type: 'String' } }, { score: 1 });
    const updatedAt = h.later();
    const after = await h.adapter().update(ref, record.objectId, [{ kind: 'set', column: 'name', path: [], value: 'x' }], updatedAt);
    expect(after).toEqual({ ...record, name: 'x', updatedAt });
    expect(await h.adapter().get(ref, record.objectId)).toEqual(after);
  });

  h.test('crud: update of a missing record or table is null and writes nothing', async () => {
    const ref = h.ref();
    const op = { kind: 'set', column: 'score', path: [], value: 1 } as const;
    expect(await h.adapter().update(ref, 'nope', [op], h.later())).toBeNull();
    await h.adapter().ensureColumns(ref, { score: { type: 'Number' } });
    expect(await h.adapter().update(ref, 'nope', [op], h.later())).toBeNull();
    expect(await h.adapter().get(ref, 'nope')).toBeNull();
  });

  h.test('crud: delete reports whether a record was removed', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, {});
    expect(await h.adapter().delete(ref, record.objectId)).toBe(true);
    expect(await h.adapter().delete(ref, record.objectId)).toBe(false);
    expect(await h.adapter().get(ref, record.objectId)).toBeNull();
    expect(await h.adapter().delete(h.ref('Missing'), 'x')).toBe(false);
  });

  h.test('crud: a duplicate objectId is a 401', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, {});
    expect(await rejectionCode(() => h.adapter().insert(ref, { ...record }))).toBe(401);
  });

  h.test('crud: callers cannot change stored state through values they passed or got', async () => {
    const ref = h.ref();
    const tags: Value[] = ['a'];
    const record = h.record({ tags, meta: { n: 1 } });
    await h.adapter().ensureColumns(ref, { tags: { type: 'Array' }, meta: { type: 'Object' } });
    await h.adapter().insert(ref, record);
    tags.push('mutated');
    const got = (await h.adapter().get(ref, record.objectId)) as unknown as { tags: string[]; meta: { n: number } };
    expect(got.tags).toEqual(['a']);
    got.tags.push('mutated');
    got.meta.n = 99;
    expect(await h.adapter().get(ref, record.objectId)).toMatchObject({ tags: ['a'], meta: { n: 1 } });
  });

  h.test('crud: get applies include and exclude projections', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { a: { type: 'Number' }, b: { type: 'Number' } }, { a: 1, b: 2 });
    const base = { objectId: record.objectId, createdAt: record.createdAt, updatedAt: record.updatedAt };
    expect(await h.adapter().get(ref, record.objectId, { kind: 'include', columns: ['a'] })).toEqual({ ...base, a: 1 });
    expect(await h.adapter().get(ref, record.objectId, { kind: 'exclude', columns: ['a'] })).toEqual({ ...base, b: 2 });
  });

  h.test('crud: unset columns are absent, not null', async () => {
    const ref = h.ref();
    const record = await h.seed(ref, { a: { type: 'Number' } }, { a: 1 });
    const after = await h.adapter().update(ref, record.objectId, [{ kind: 'unset', column: 'a', path: [] }], h.later());
    expect(after).not.toHaveProperty('a');
    expect(await h.adapter().get(ref, record.objectId)).not.toHaveProperty('a');
  });

  h.test('crud: namespaces keep applications apart and drop independently', async () => {
    const one = h.ref('Item', 'nsOne');
    const two = h.ref('Item', 'nsTwo');
    const a = await h.seed(one, { x: { type: 'Number' } }, { x: 1 });
    await h.seed(two, { x: { type: 'String' } }, { x: 'text' });
    expect(await h.adapter().get(two, a.objectId)).toBeNull();
    await h.adapter().dropNamespace('nsTwo');
    expect(await h.adapter().getSchema(two)).toBeNull();
    expect(await h.adapter().get(one, a.objectId)).toEqual(a);
  });

  h.test('crud: listTables (when offered) names exactly the tables of one namespace', async () => {
    const adapter = h.adapter();
    if (!adapter.listTables) return;
    const one = h.ref('Listed', 'nsList');
    await h.seed(one, { x: { type: 'Number' } }, { x: 1 });
    await adapter.ensureColumns(h.ref('Empty', 'nsList'), {});
    await h.seed(h.ref('Elsewhere', 'nsListOther'), { x: { type: 'Number' } }, { x: 1 });
    expect((await adapter.listTables('nsList')).sort()).toEqual(['Empty', 'Listed']);
    expect(await adapter.listTables('nsNothing')).toEqual([]);
  });
}
