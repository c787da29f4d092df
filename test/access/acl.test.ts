import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { aclReadFilter, withAclFilter } from '../../src/access/acl-filter.js';
import { type Acl, newUserAcl, parseAcl } from '../../src/access/acl.js';
import { ANONYMOUS, aclAllows, principalsOf } from '../../src/access/principals.js';
import { type RoleLookup, type RoleRef, resolveUserRoles } from '../../src/access/role-graph.js';
import { isSvcError } from '../../src/core/errors.js';
import type { Json } from '../../src/core/wire-values.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { FindPlan, TableSchema } from '../../src/query/plan.js';
import { Fixture } from '../query/helpers/fixture.js';
import { sqliteDialect } from '../../src/query/sql/index.js';

const ACL_MESSAGE = 'ACL shoud be like: {"*":{"read":true},"eAfHB29gP9":{"write":true}}.';

function refusal(value: Json): unknown {
  try {
    parseAcl(value);
  } catch (error) {
    return isSvcError(error) ? { code: error.code, message: error.message } : error;
  }
  return 'accepted';
}

describe('parseAcl', () => {
  it('accepts the documented shapes', () => {
    const acl = parseAcl({ Kc3M222k: { read: true, write: true }, '*': { read: true }, 'role:Mod erators-1_x': { write: true } });
    expect({ ...acl }).toEqual({ Kc3M222k: { read: true, write: true }, '*': { read: true }, 'role:Mod erators-1_x': { write: true } });
    expect({ ...parseAcl({}) }).toEqual({});
  });

  it.each<[string, Json]>([
    ['an array', [{ '*': { read: true } }]],
    ['a string', '{"*":{"read":true}}'],
    ['null', null],
    ['a false value', { '*': { read: false } }],
    ['a truthy non-boolean', { '*': { read: 1 } }],
    ['an unknown permission', { '*': { read: true, admin: true } }],
    ['an empty grant', { '*': {} }],
    ['a grant that is not an object', { '*': true }],
    ['a bad role name', { 'role:a;drop': { read: true } }],
    ['an empty role name', { 'role:': { read: true } }],
    ['a user id with a quote', { "x'); --": { read: true } }],
    ['a __proto__ principal', JSON.parse('{"__proto__":{"read":true}}') as Json],
    ['a constructor principal with a path', { 'a.b': { read: true } }],
  ])('refuses %s with 107 and the hosted message', (_, value) => {
    expect(refusal(value)).toEqual({ code: 107, message: ACL_MESSAGE });
  });

  it('returns a map with no prototype, and refuses names a plain object inherits', () => {
    expect(Object.getPrototypeOf(parseAcl({ u1: { read: true } }))).toBeNull();
    expect(refusal({ toString: { read: true } })).toEqual({ code: 107, message: ACL_MESSAGE });
    expect(refusal({ constructor: { write: true } })).toEqual({ code: 107, message: ACL_MESSAGE });
    expect(aclAllows(parseAcl({}), principalsOf('constructor'), 'read')).toBe(false);
  });
});

describe('aclAllows', () => {
  const acl: Acl = { '*': { read: true }, u1: { write: true }, 'role:mods': { read: true, write: true } };
  it('grants by public, user and role principals', () => {
    expect(aclAllows(acl, ANONYMOUS, 'read')).toBe(true);
    expect(aclAllows(acl, ANONYMOUS, 'write')).toBe(false);
    expect(aclAllows(acl, principalsOf('u1'), 'write')).toBe(true);
    expect(aclAllows(acl, principalsOf('u2'), 'write')).toBe(false);
    expect(aclAllows(acl, principalsOf('u2', ['mods']), 'write')).toBe(true);
  });
  it('treats a missing ACL as public read and write, an empty one as nobody', () => {
    expect(aclAllows(undefined, ANONYMOUS, 'write')).toBe(true);
    expect(aclAllows({}, principalsOf('u1', ['mods']), 'read')).toBe(false);
  });
  it('gives a new user public read and its own write', () => {
    const acl = newUserAcl('u9');
    expect(aclAllows(acl, ANONYMOUS, 'read')).toBe(true);
    expect(aclAllows(acl, ANONYMOUS, 'write')).toBe(false);
    expect(aclAllows(acl, principalsOf('u9'), 'write')).toBe(true);
  });
});

describe('resolveUserRoles', () => {
  /** parent -> child roles (a child's members get the parent's rights) and role -> users. */
  function lookup(children: Record<string, string[]>, users: Record<string, string[]>): RoleLookup & { calls: number } {
    const ref = (id: string): RoleRef => ({ objectId: id, name: `n-${id}` });
    const out = {
      calls: 0,
      async rolesWithUser(userId: string) {
        out.calls++;
        return Object.keys(users).filter((r) => users[r]!.includes(userId)).map(ref);
      },
      async parentsOf(ids: readonly string[]) {
        out.calls++;
        return Object.keys(children).filter((p) => children[p]!.some((c) => ids.includes(c))).map(ref);
      },
    };
    return out;
  }

  it('follows child roles up to every ancestor', async () => {
    const l = lookup({ admins: ['mods'], mods: ['helpers'], other: [] }, { helpers: ['u1'] });
    const { names, truncated } = await resolveUserRoles(l, 'u1');
    expect(names.sort()).toEqual(['n-admins', 'n-helpers', 'n-mods']);
    expect(truncated).toBe(false);
  });

  it('ends on cycles, visiting each role once', async () => {
    const l = lookup({ a: ['b'], b: ['c'], c: ['a'] }, { a: ['u1'] });
    const { names } = await resolveUserRoles(l, 'u1');
    expect(names.sort()).toEqual(['n-a', 'n-b', 'n-c']);
    expect(l.calls).toBeLessThanOrEqual(5);
  });

  it('stops at the limit and says so', async () => {
    const children: Record<string, string[]> = {};
    for (let i = 0; i < 50; i++) children[`r${i + 1}`] = [`r${i}`];
    const { names, truncated } = await resolveUserRoles(lookup(children, { r0: ['u1'] }), 'u1', 10);
    expect(names).toHaveLength(10);
    expect(truncated).toBe(true);
  });

  it('gives a user without roles none', async () => {
    expect((await resolveUserRoles(lookup({}, {}), 'u1')).names).toEqual([]);
  });
});

describe('ACL read filter: memory evaluator and SQLite agree (pushed into the query)', () => {
  const schema: TableSchema = {
    className: 'Note',
    columns: { n: { type: 'Number' }, ACL: { type: 'Object' } },
    indexes: [],
  };
  const principalKeys = ['*', 'u1', 'u2', 'role:mods', 'role:Mod erators', 'toString'];
  const grant = fc.record({ read: fc.boolean(), write: fc.boolean() }).map((g) => {
    const out: Record<string, true> = {};
    if (g.read) out['read'] = true;
    if (g.write) out['write'] = true;
    return out;
  });
  const aclValue = fc.option(fc.dictionary(fc.constantFrom(...principalKeys), grant, { maxKeys: 4 }), { nil: undefined });
  const records = fc.array(aclValue, { minLength: 0, maxLength: 25 }).map((acls) =>
    acls.map((acl, i): StoredRecord => {
      const at = { __type: 'Date', iso: new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString() } as const;
      const base = { objectId: `r${String(i).padStart(3, '0')}`, createdAt: at, updatedAt: at, n: i };
      return (acl === undefined ? base : { ...base, ACL: acl }) as StoredRecord;
    }),
  );
  const callers = fc.constantFrom(
    principalsOf(null),
    principalsOf('u1'),
    principalsOf('u2', ['mods']),
    principalsOf('u3', ['Mod erators', 'mods']),
    principalsOf('toString'),
  );

  it('returns exactly the records aclAllows says are readable, on both backends, with limit and skip', () => {
    fc.assert(
      fc.property(records, callers, fc.nat(5), fc.integer({ min: 1, max: 30 }), (rows, principals, skip, limit) => {
        const fixture = new Fixture([{ schema, records: rows }]);
        try {
          const plan: FindPlan = {
            where: withAclFilter({ kind: 'compare', field: { column: 'n', path: [] }, op: 'gte', value: 0 }, principals),
            order: [{ field: { column: 'createdAt', path: [] }, descending: false }],
            skip,
            limit,
            projection: { kind: 'all' },
          };
          const expected = rows
            .filter((r) => aclAllows(r['ACL'] as Acl | undefined, principals, 'read'))
            .slice(skip, skip + limit)
            .map((r) => r.objectId);
          expect(fixture.memoryFind('Note', plan).map((r) => r.objectId)).toEqual(expected);
          // The SQLite adapter's dialect reads `ACL$read`; the exported sqliteDialect reads the JSON.
          expect(fixture.sqlFind('Note', plan).map((r) => r.objectId)).toEqual(expected);
          expect(fixture.sqlFind('Note', plan, sqliteDialect).map((r) => r.objectId)).toEqual(expected);
          const filter = aclReadFilter(principals);
          const count = rows.filter((r) => aclAllows(r['ACL'] as Acl | undefined, principals, 'read')).length;
          expect(fixture.memoryCount('Note', filter)).toBe(count);
          expect(fixture.sqlCount('Note', filter)).toBe(count);
          expect(fixture.sqlCount('Note', filter, sqliteDialect)).toBe(count);
        } finally {
          fixture.close();
        }
      }),
      { seed: Number(process.env.FC_SEED ?? 20261123), numRuns: Number(process.env.FC_RUNS ?? 150) },
    );
  });
});
