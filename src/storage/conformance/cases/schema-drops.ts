import { expect } from 'vitest';
import type { FindPlan, WhereNode } from '../../../query/plan.js';
import { type Harness, rejectionCode } from '../harness.js';

const ALL: WhereNode = { kind: 'all_records' };
const everything: FindPlan = { where: ALL, order: [], skip: 0, limit: 1000, projection: { kind: 'all' } };

/** The optional drops (`dropColumn`, `dropIndex`, `dropTable`): data goes with the schema, and the names can be used again. */
export function schemaDropCases(h: Harness): void {
  h.test('drops: dropColumn removes the column, its data and the indexes naming it; the name can return with another type', async () => {
    const adapter = h.adapter();
    if (!adapter.dropColumn) return;
    const ref = h.ref();
    const columns = { title: { type: 'String' }, rank: { type: 'Number' }, at: { type: 'GeoPoint' } } as const;
    const kept = await h.seed(ref, columns, { title: 'a', rank: 1, at: { __type: 'GeoPoint', latitude: 1, longitude: 2 } });
    await adapter.createIndex(ref, { name: 'byTitle', columns: ['title'], unique: true });
    await adapter.createIndex(ref, { name: 'byRank', columns: ['rank'], unique: false });
    await adapter.createIndex(ref, { name: 'both', columns: ['rank', 'title'], unique: false });
    expect(await adapter.dropColumn(ref, 'title')).toBe(true);
    expect(await adapter.dropColumn(ref, 'title')).toBe(false);
    expect(await adapter.dropColumn(ref, 'at')).toBe(true);
    const schema = await adapter.getSchema(ref);
    expect(schema?.columns).toEqual({ rank: { type: 'Number' } });
    expect(schema?.indexes).toEqual([{ name: 'byRank', columns: ['rank'], unique: false }]);
    const { title: _title, at: _at, ...rest } = kept;
    expect(await adapter.get(ref, kept.objectId)).toEqual(rest);
    expect(await adapter.find(ref, everything)).toEqual([rest]);
    // Back with another type: old records hold nothing in it, and the dropped unique index is gone.
    await adapter.ensureColumns(ref, { title: { type: 'Number' } });
    await adapter.insert(ref, h.record({ title: 5 }));
    await adapter.insert(ref, h.record({ title: 5 }));
    expect(await adapter.count(ref, { kind: 'compare', field: { column: 'title', path: [] }, op: 'eq', value: 5 })).toBe(2);
    expect((await adapter.get(ref, kept.objectId))?.['title']).toBeUndefined();
  });

  h.test('drops: dropColumn of a Relation removes its links', async () => {
    const adapter = h.adapter();
    if (!adapter.dropColumn) return;
    const users = h.ref('_User');
    const posts = h.ref('Post');
    const user = await h.seed(users, { name: { type: 'String' } }, { name: 'u' });
    const post = await h.seed(posts, { likes: { type: 'Relation', targetClass: '_User' } });
    await adapter.update(posts, post.objectId, [{ kind: 'add_relation', column: 'likes', targetClass: '_User', ids: [user.objectId] }], h.later());
    expect(await adapter.dropColumn(posts, 'likes')).toBe(true);
    expect((await adapter.getSchema(posts))?.columns).toEqual({});
    await adapter.ensureColumns(posts, { likes: { type: 'Relation', targetClass: '_User' } });
    const related: WhereNode = { kind: 'related_to', owner: { __type: 'Pointer', className: 'Post', objectId: post.objectId }, key: 'likes' };
    expect(await adapter.find(users, { ...everything, where: related })).toEqual([]);
  });

  h.test('drops: dropIndex removes a declared index (a unique one stops refusing duplicates)', async () => {
    const adapter = h.adapter();
    if (!adapter.dropIndex) return;
    const ref = h.ref();
    await h.seed(ref, { email: { type: 'String' } }, { email: 'a@x' });
    await adapter.createIndex(ref, { name: 'email', columns: ['email'], unique: true });
    expect(await rejectionCode(() => adapter.insert(ref, h.record({ email: 'a@x' })))).toBe(401);
    expect(await adapter.dropIndex(ref, 'email')).toBe(true);
    expect(await adapter.dropIndex(ref, 'email')).toBe(false);
    expect((await adapter.getSchema(ref))?.indexes).toEqual([]);
    await adapter.insert(ref, h.record({ email: 'a@x' }));
    expect(await adapter.count(ref, ALL)).toBe(2);
    await adapter.createIndex(ref, { name: 'email', columns: ['email'], unique: false });
    expect((await adapter.getSchema(ref))?.indexes).toEqual([{ name: 'email', columns: ['email'], unique: false }]);
  });

  h.test('drops: dropTable removes the table with its records; the name starts afresh', async () => {
    const adapter = h.adapter();
    if (!adapter.dropTable) return;
    const ref = h.ref('Gone', 'nsDrop');
    const other = h.ref('Stays', 'nsDrop');
    const record = await h.seed(ref, { n: { type: 'Number' }, r: { type: 'Relation', targetClass: 'Stays' } }, { n: 1 });
    await adapter.createIndex(ref, { name: 'byN', columns: ['n'], unique: true });
    const stays = await h.seed(other, { n: { type: 'Number' } }, { n: 1 });
    expect(await adapter.dropTable(ref)).toBe(true);
    expect(await adapter.dropTable(ref)).toBe(false);
    expect(await adapter.getSchema(ref)).toBeNull();
    expect(await adapter.get(ref, record.objectId)).toBeNull();
    expect(await adapter.find(ref, everything)).toEqual([]);
    if (adapter.listTables) expect(await adapter.listTables('nsDrop')).toEqual(['Stays']);
    expect(await adapter.get(other, stays.objectId)).toEqual(stays);
    const fresh = await adapter.ensureColumns(ref, { n: { type: 'String' } });
    expect(fresh.columns).toEqual({ n: { type: 'String' } });
    expect(fresh.indexes).toEqual([]);
    await adapter.insert(ref, h.record({ n: 'x' }));
    expect(await adapter.count(ref, ALL)).toBe(1);
  });

  h.test('drops: a drop inside a rolled-back transaction leaves everything as it was', async () => {
    const adapter = h.adapter();
    if (!adapter.dropColumn || !adapter.dropTable) return;
    const ref = h.ref();
    const record = await h.seed(ref, { title: { type: 'String' } }, { title: 'kept' });
    const failed = adapter.transaction(async (tx) => {
      await tx.dropColumn!(ref, 'title');
      throw new Error('roll back');
    });
    await expect(failed).rejects.toThrow('roll back');
    expect((await adapter.getSchema(ref))?.columns).toEqual({ title: { type: 'String' } });
    expect(await adapter.get(ref, record.objectId)).toEqual(record);
  });
}
