import { expect } from 'vitest';
import type { FindPlan, WhereNode } from '../../../query/plan.js';
import type { StorageAdapter, TableRef } from '../../port.js';
import type { Harness } from '../harness.js';

const related = (ownerClass: string, ownerId: string, key: string): WhereNode => ({
  kind: 'related_to',
  owner: { __type: 'Pointer', className: ownerClass, objectId: ownerId },
  key,
});

const plan = (where: WhereNode): FindPlan => ({ where, order: [], skip: 0, limit: 1000, projection: { kind: 'all' } });

async function memberIds(adapter: StorageAdapter, target: TableRef, ownerClass: string, ownerId: string, key: string): Promise<string[]> {
  const found = await adapter.find(target, plan(related(ownerClass, ownerId, key)));
  return found.map((r) => r.objectId).sort();
}

/** Relation membership: add, remove, idempotence, and cleanup when the owner goes. */
export function relationCases(h: Harness): void {
  const setup = async () => {
    const users = h.ref('_User');
    const posts = h.ref('Post');
    const u1 = await h.seed(users, { name: { type: 'String' } }, { name: 'a' });
    const u2 = await h.seed(users, { name: { type: 'String' } }, { name: 'b' });
    const post = await h.seed(posts, { likes: { type: 'Relation', targetClass: '_User' } });
    return { users, posts, u1, u2, post };
  };

  h.test('relations: add_relation adds members once; remove_relation removes them', async () => {
    const { users, posts, u1, u2, post } = await setup();
    const add = { kind: 'add_relation', column: 'likes', targetClass: '_User', ids: [u1.objectId, u2.objectId] } as const;
    await h.adapter().update(posts, post.objectId, [add], h.later());
    await h.adapter().update(posts, post.objectId, [add], h.later());
    expect(await memberIds(h.adapter(), users, 'Post', post.objectId, 'likes')).toEqual([u1.objectId, u2.objectId].sort());
    await h.adapter().update(posts, post.objectId, [{ kind: 'remove_relation', column: 'likes', targetClass: '_User', ids: [u1.objectId] }], h.later());
    expect(await memberIds(h.adapter(), users, 'Post', post.objectId, 'likes')).toEqual([u2.objectId]);
  });

  h.test('relations: relation columns are not inlined in records', async () => {
    const { posts, u1, post } = await setup();
    const after = await h.adapter().update(posts, post.objectId, [{ kind: 'add_relation', column: 'likes', targetClass: '_User', ids: [u1.objectId] }], h.later());
    expect(after).not.toHaveProperty('likes');
    expect(await h.adapter().get(posts, post.objectId)).not.toHaveProperty('likes');
  });

  h.test('relations: deleting the owner forgets its members', async () => {
    const { users, posts, u1, post } = await setup();
    await h.adapter().update(posts, post.objectId, [{ kind: 'add_relation', column: 'likes', targetClass: '_User', ids: [u1.objectId] }], h.later());
    await h.adapter().delete(posts, post.objectId);
    expect(await memberIds(h.adapter(), users, 'Post', post.objectId, 'likes')).toEqual([]);
  });

  h.test('relations: an update of a missing owner adds no members', async () => {
    const { users, posts, u1 } = await setup();
    const result = await h.adapter().update(posts, 'ghost', [{ kind: 'add_relation', column: 'likes', targetClass: '_User', ids: [u1.objectId] }], h.later());
    expect(result).toBeNull();
    expect(await memberIds(h.adapter(), users, 'Post', 'ghost', 'likes')).toEqual([]);
  });
}
