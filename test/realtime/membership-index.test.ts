import { describe, expect, it } from 'vitest';
import { resolveApplication } from '../../src/app/application.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { Json } from '../../src/core/wire-values.js';
import { contextFor } from '../../src/query/evaluate/context.js';
import { compileClosurePredicate } from '../../src/query/evaluate/where.js';
import { parseWhere } from '../../src/query/parse.js';
import { MembershipIndex, membershipGuard } from '../../src/realtime/membership-index.js';
import { SharedWheres } from '../../src/realtime/shared-wheres.js';
import { RT_APP } from './harness.js';

// Issue 36, item 7: every write was matched against each of ~217 heavy wheres (a 900-value `$in`
// against a 1000-value array: `$in` membership was the largest cost of the flood in a CPU profile).
// A table's wheres are now screened by one index of their required `$in` values; these tests pin
// that the screen never changes an answer, and that it spares the evaluations it should.

const app = resolveApplication({ ...RT_APP, settings: { features: { realtime: true, regex: true } } });
const parse = (where: { [key: string]: Json }) => parseWhere(where, { className: 'T', schema: () => null, settings: app.settings });
const reference = (where: { [key: string]: Json }) =>
  compileClosurePredicate(parse(where), contextFor({ className: 'T', records: () => [], relationMembers: () => new Set(), schema: () => null }, 'T'));
const request = (where: { [key: string]: Json }) => ({ app, className: 'T', where, schema: null, hidden: new Set<string>() });
const record = (fields: Record<string, unknown>) => ({ objectId: 'r', ...fields }) as unknown as StoredRecord;

const WHERES: Array<{ [key: string]: Json }> = [
  { tag: { $in: ['a', 'b'] } },
  { tag: { $in: ['b', 'c'] }, name: { $regex: '^h' } },
  { tag: { $in: [1, 2, 0] } },
  { tag: { $in: [true] } },
  { tag: { $in: ['a', 1, false] }, n: { $in: [5, 6] } },
  { tag: { $in: [] } },
  { tag: { $in: ['a', null] } },
  { tag: { $in: [['a', 'b']] } },
  { tag: { $in: [{ x: 1 }, 'z'] } },
  { tag: { $nin: ['a'] } },
  { $or: [{ tag: { $in: ['a'] } }, { n: 5 }] },
  { $and: [{ tag: { $in: ['c', 'd'] } }, { n: { $gt: 1 } }] },
  { 'o.k': { $in: ['a', 'q'] } },
  { n: { $in: [5, -0] } },
];

const RECORDS: StoredRecord[] = [
  record({}),
  record({ tag: 'a' }),
  record({ tag: 'c', name: 'hello' }),
  record({ tag: ['x', 'b'], name: 'hey' }),
  record({ tag: ['x', 'y'], n: 5 }),
  record({ tag: [['a', 'b']] }),
  record({ tag: ['a', 'b'] }),
  record({ tag: null }),
  record({ tag: [null, 'z'] }),
  record({ tag: { x: 1 } }),
  record({ tag: [{ x: 1 }] }),
  record({ tag: -0, n: 6 }),
  record({ tag: [2, true], n: 5 }),
  record({ tag: 'false' }),
  record({ tag: ['d'], n: 2 }),
  record({ o: { k: 'q' } }),
  record({ o: [{ k: 'q' }] }),
  record({ n: Number.NaN }),
  record({ n: [0, 'x'] }),
  record({ tag: 'toString' }),
];

describe('membershipGuard', () => {
  it('takes a required `$in` of strings, numbers and booleans (the shortest of several), never a negated, optional or null/object one', () => {
    expect(membershipGuard(parse({ tag: { $in: ['a', 'b'] } }))?.values).toEqual(['a', 'b']);
    expect(membershipGuard(parse({ tag: { $in: ['a', 'b', 'c'] }, n: { $in: [1] } }))?.field.column).toBe('n');
    expect(membershipGuard(parse({ tag: { $nin: ['a'] } }))).toBeNull();
    expect(membershipGuard(parse({ $or: [{ tag: { $in: ['a'] } }, { n: 1 }] }))).toBeNull();
    expect(membershipGuard(parse({ tag: { $in: ['a', null] } }))).toBeNull();
    expect(membershipGuard(parse({ tag: { $in: [{ x: 1 }] } }))).toBeNull();
  });
});

describe('MembershipIndex in SharedWheres', () => {
  it('every where answers every record as the reference evaluator does (scalars, arrays of values, nested arrays, null, objects, -0, NaN, paths)', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 100, maxWhereCostPerApp: 10_000 });
    const held = WHERES.map((where) => ({ where, shared: wheres.acquire(request(where), () => {}), test: reference(where) }));
    expect(wheres.usage(app.applicationId).guarded).toBe(9);
    for (const r of RECORDS) {
      for (const { where, shared, test } of held) expect([where, r, shared.matches(r)]).toEqual([where, r, test(r)]);
    }
  });

  it('a record is read once for all guarded wheres, and only the wheres it hits are evaluated', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 100, maxWhereCostPerApp: 100_000 });
    const held = Array.from({ length: 50 }, (_, n) => wheres.acquire(request({ tag: { $in: Array.from({ length: 20 }, (_, k) => `v${k}-${n}`) } }), () => {}));
    let reads = 0;
    const tags = Array.from({ length: 100 }, (_, k) => `x${k}`).concat('v3-7');
    const r = { objectId: 'r', get tag() {
      reads++;
      return tags;
    } } as unknown as StoredRecord;
    expect(held.map((shared) => shared.matches(r)).flatMap((hit, n) => (hit ? [n] : []))).toEqual([7]);
    // One read by the index, one by the where it hit (49 evaluations spared).
    expect(reads).toBe(2);
  });

  it('a where added after a record was screened is screened again; a released one leaves the index', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 100, maxWhereCostPerApp: 1000 });
    const first = wheres.acquire(request({ tag: { $in: ['a'] } }), () => {});
    const r = record({ tag: ['b'] });
    expect(first.matches(r)).toBe(false);
    const second = wheres.acquire(request({ tag: { $in: ['b'] } }), () => {});
    expect(second.matches(r)).toBe(true);
    wheres.release(app.applicationId, second);
    // Compiled again after its release (a recompile that awaited the schema meanwhile): it stays out.
    second.recompile(null);
    expect(wheres.usage(app.applicationId)).toMatchObject({ wheres: 1, guarded: 1 });
    wheres.release(app.applicationId, first);
    expect(wheres.usage(app.applicationId)).toEqual({ subscriptions: 0, wheres: 0, guarded: 0, cost: 0 });
  });
});

describe('MembershipIndex', () => {
  const guard = (where: { [key: string]: Json }) => membershipGuard(parse(where));

  it('indexing a where again replaces its guard; removing the last where listing a value forgets the value', () => {
    const index = new MembershipIndex<object>();
    const a = {};
    const b = {};
    index.set(a, guard({ tag: { $in: ['x', 'y'] } }));
    index.set(b, guard({ tag: { $in: ['y'] } }));
    expect(index.mayMatch(a, record({ tag: 'x' }))).toBe(true);
    index.set(a, guard({ n: { $in: [1] } }));
    expect([index.mayMatch(a, record({ tag: 'x' })), index.mayMatch(a, record({ n: 1 }))]).toEqual([false, true]);
    index.remove(b);
    expect(index.mayMatch(b, record({ tag: 'y' }))).toBe(true);
    index.set(a, null);
    expect([index.size, index.mayMatch(a, record({}))]).toEqual([0, true]);
    // A value listed twice, by wheres sharing it: each where is entered and removed once.
    index.set(a, guard({ tag: { $in: ['x', 'x', 'y'] } }));
    index.set(b, guard({ tag: { $in: ['x', 'x'] } }));
    index.remove(a);
    expect([index.mayMatch(a, record({ tag: 'y' })), index.mayMatch(b, record({ tag: 'x' })), index.mayMatch(b, record({ tag: 'y' }))]).toEqual([true, true, false]);
    index.remove(b);
    expect(index.size).toBe(0);
  });
});
