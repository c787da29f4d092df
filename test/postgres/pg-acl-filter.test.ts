import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Acl } from '../../src/access/acl.js';
import { aclReadFilter, withAclFilter } from '../../src/access/acl-filter.js';
import { aclAllows, principalsOf } from '../../src/access/principals.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { FindPlan } from '../../src/query/plan.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { postgresStorage } from '../../src/storage/postgres/index.js';
import { type TestSchema, createTestSchema, postgresAvailable } from './pg-test-db.js';

/**
 * The ACL read filter on PostgreSQL against `aclAllows` (the reference): the same property as the
 * memory/SQLite one in test/access/acl.test.ts, through the real adapter, with limit, skip and count.
 */
const available = await postgresAvailable('pg-acl-filter');

describe.skipIf(!available)('ACL read filter on PostgreSQL agrees with aclAllows', () => {
  let schema: TestSchema;
  let pg: StorageAdapter;
  beforeAll(async () => {
    schema = await createTestSchema('svc_aclf');
    pg = postgresStorage({ sql: schema.client({ max: 4 }) });
  });
  afterAll(async () => {
    await pg?.close();
    await schema?.drop();
  });

  const principalKeys = ['*', 'u1', 'u2', 'role:mods', 'role:Mod erators', 'toString'];
  const grant = fc.record({ read: fc.boolean(), write: fc.boolean() }).map((g) => {
    const out: Record<string, true> = {};
    if (g.read) out['read'] = true;
    if (g.write) out['write'] = true;
    return out;
  });
  const aclValue = fc.option(fc.dictionary(fc.constantFrom(...principalKeys), grant, { maxKeys: 4 }), { nil: undefined });
  const callers = fc.constantFrom(principalsOf(null), principalsOf('u1'), principalsOf('u2', ['mods']), principalsOf('u3', ['Mod erators', 'mods']), principalsOf('toString'));
  let table = 0;

  it('returns exactly the readable records, with limit, skip and count', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(aclValue, { maxLength: 20 }), callers, fc.nat(5), fc.integer({ min: 1, max: 30 }), async (acls, principals, skip, limit) => {
        const ref = { namespace: 'acl', className: `Note${++table}` };
        await pg.ensureColumns(ref, { n: { type: 'Number' }, ACL: { type: 'Object' } });
        const rows = acls.map((acl, i): StoredRecord => {
          const at = { __type: 'Date', iso: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString() } as const;
          const base = { objectId: `r${String(i).padStart(3, '0')}`, createdAt: at, updatedAt: at, n: i };
          return (acl === undefined ? base : { ...base, ACL: acl }) as StoredRecord;
        });
        for (const row of rows) await pg.insert(ref, row);
        const readable = rows.filter((r) => aclAllows(r['ACL'] as Acl | undefined, principals, 'read'));
        const plan: FindPlan = {
          where: withAclFilter({ kind: 'compare', field: { column: 'n', path: [] }, op: 'gte', value: 0 }, principals),
          order: [{ field: { column: 'createdAt', path: [] }, descending: false }],
          skip,
          limit,
          projection: { kind: 'all' },
        };
        expect((await pg.find(ref, plan)).map((r) => r.objectId)).toEqual(readable.slice(skip, skip + limit).map((r) => r.objectId));
        expect(await pg.count(ref, aclReadFilter(principals))).toBe(readable.length);
      }),
      { seed: Number(process.env.FC_SEED ?? 20261124), numRuns: Number(process.env.FC_RUNS ?? 40) },
    );
  });
});
