import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { RoleCache } from '../../src/access/role-cache.js';
import { resolveUserRoles } from '../../src/access/role-graph.js';
import { ROLE_CLASS, storageRoleLookup } from '../../src/access/role-lookup.js';
import { FakeClock } from '../../src/core/clock.js';
import { dateValue } from '../../src/core/values.js';
import type { StoredRecord } from '../../src/core/values.js';
import { memoryStorage } from '../../src/storage/memory/memory-adapter.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { sqliteStorage } from '../../src/storage/sqlite/index.js';

const NS = 'app';
const roles = { namespace: NS, className: ROLE_CLASS };

async function seed(storage: StorageAdapter, graph: { children: Record<string, string[]>; users: Record<string, string[]> }): Promise<void> {
  await storage.ensureColumns(roles, {
    name: { type: 'String' },
    users: { type: 'Relation', targetClass: '_User' },
    roles: { type: 'Relation', targetClass: ROLE_CLASS },
  });
  const names = new Set([...Object.keys(graph.children), ...Object.values(graph.children).flat(), ...Object.keys(graph.users)]);
  let t = 1_000;
  for (const name of names) {
    await storage.insert(roles, { objectId: `id${name}`, createdAt: dateValue(t), updatedAt: dateValue(t++), name } as StoredRecord);
  }
  for (const [parent, children] of Object.entries(graph.children)) {
    await storage.update(roles, `id${parent}`, [{ kind: 'add_relation', column: 'roles', targetClass: ROLE_CLASS, ids: children.map((c) => `id${c}`) }], dateValue(t++));
  }
  for (const [role, users] of Object.entries(graph.users)) {
    await storage.update(roles, `id${role}`, [{ kind: 'add_relation', column: 'users', targetClass: '_User', ids: users }], dateValue(t++));
  }
}

const adapters: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => sqliteStorage({ database: new Database(':memory:') })],
];

describe.each(adapters)('role lookup over storage (%s)', (_, make) => {
  let storage: StorageAdapter;
  afterEach(async () => storage.close());

  it('resolves direct roles, inherited parents and cycles from _Role relations', async () => {
    storage = make();
    await seed(storage, { children: { admins: ['mods'], mods: ['helpers', 'admins'], 'Night Shift': ['helpers'] }, users: { helpers: ['u1'], mods: ['u2'] } });
    const lookup = storageRoleLookup(storage, NS);
    expect((await resolveUserRoles(lookup, 'u1')).names.sort()).toEqual(['Night Shift', 'admins', 'helpers', 'mods']);
    expect((await resolveUserRoles(lookup, 'u2')).names.sort()).toEqual(['admins', 'mods']);
    expect((await resolveUserRoles(lookup, 'nobody')).names).toEqual([]);
  });

  it('answers no roles for a namespace without a _Role table', async () => {
    storage = make();
    expect((await resolveUserRoles(storageRoleLookup(storage, 'other'), 'u1')).names).toEqual([]);
  });

  it('caches per user until the TTL or an invalidation, and shares one walk between concurrent callers', async () => {
    storage = make();
    await seed(storage, { children: {}, users: { mods: ['u1'] } });
    const clock = new FakeClock(0);
    let walks = 0;
    const cache = new RoleCache({
      clock,
      ttlMs: 1000,
      lookup: (ns) => {
        const inner = storageRoleLookup(storage, ns);
        return { rolesWithUser: (id) => (walks++, inner.rolesWithUser(id)), parentsOf: (ids) => inner.parentsOf(ids) };
      },
    });
    const [a, b] = await Promise.all([cache.rolesOf(NS, 'u1'), cache.rolesOf(NS, 'u1')]);
    expect([a, b]).toEqual([['mods'], ['mods']]);
    expect(walks).toBe(1);
    await storage.update(roles, 'idmods', [{ kind: 'remove_relation', column: 'users', targetClass: '_User', ids: ['u1'] }], dateValue(9_999));
    expect(await cache.rolesOf(NS, 'u1')).toEqual(['mods']);
    clock.advance(1000);
    expect(await cache.rolesOf(NS, 'u1')).toEqual([]);
    expect(walks).toBe(2);
    await storage.update(roles, 'idmods', [{ kind: 'add_relation', column: 'users', targetClass: '_User', ids: ['u1'] }], dateValue(10_000));
    cache.invalidate(NS);
    expect(await cache.rolesOf(NS, 'u1')).toEqual(['mods']);
    expect(walks).toBe(3);
  });
});
