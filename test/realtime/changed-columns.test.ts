import { describe, expect, it } from 'vitest';
import { resolveApplication } from '../../src/app/application.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { Json } from '../../src/core/wire-values.js';
import type { RealtimeChange } from '../../src/realtime/change.js';
import { changedColumns } from '../../src/realtime/changed-columns.js';
import { SharedWheres } from '../../src/realtime/shared-wheres.js';
import { type WhereSubscription, matchChange } from '../../src/realtime/subscription.js';
import { RT_APP } from './harness.js';

// Issue 36, item 7: an update was matched against each where twice (its record before and after),
// also when it left every column the where names alone, as the soak's flood writer does with the
// 1000-value array its wheres watch. Such a where is now evaluated once per update.

const app = resolveApplication({ ...RT_APP, settings: { features: { realtime: true, regex: true } } });
const record = (fields: Record<string, unknown>) => ({ objectId: 'r', ...fields }) as unknown as StoredRecord;
const update = (before: Record<string, unknown>, after: Record<string, unknown>): RealtimeChange => ({
  op: 'update',
  app: app.applicationId,
  className: 'T',
  objectId: 'r',
  before: record(before),
  after: record(after),
});

describe('changedColumns', () => {
  it('names the columns whose stored JSON differs (added, removed, deep changes, -0 vs 0), once per change; null unless an update', () => {
    const change = update(
      { same: [1, { a: 'x', b: [2] }], moved: { a: 1, b: 2 }, gone: 1, zero: 0, deep: { a: [1, 2] }, kind: [1] },
      { same: [1, { b: [2], a: 'x' }], moved: { b: 2, a: 1 }, added: null, zero: -0, deep: { a: [1, 3] }, kind: { 0: 1 } },
    );
    const changed = changedColumns(change);
    expect([...changed!].sort()).toEqual(['added', 'deep', 'gone', 'kind', 'zero']);
    expect(changedColumns(change)).toBe(changed);
    expect(changedColumns({ op: 'create', app: app.applicationId, className: 'T', objectId: 'r', after: record({}) })).toBeNull();
    expect(changedColumns({ op: 'delete', app: app.applicationId, className: 'T', objectId: 'r', before: record({}) })).toBeNull();
  });
});

describe('matchChange on an update', () => {
  const counting = (named: string, test: (r: StoredRecord) => boolean) => {
    const asked: StoredRecord[] = [];
    const sub: WhereSubscription = { kind: 'where', id: '1', className: 'T', cost: 1, columns: new Set([named]), hidden: new Set(), matches: (r) => (asked.push(r), test(r)), namesAny: (columns) => columns.has(named), release() {} };
    return { sub, asked };
  };
  const all = () => true;

  it('evaluates a where once when the update left its columns alone, twice otherwise; the events are the same', () => {
    const quiet = update({ score: 5, name: 'a' }, { score: 5, name: 'b' });
    const { sub, asked } = counting('score', (r) => (r as unknown as { score: number }).score > 3);
    expect(matchChange(sub, quiet, all)).toMatchObject({ action: 'update' });
    expect(asked).toEqual([quiet.after]);
    const leaving = update({ score: 5 }, { score: 1 });
    const second = counting('score', (r) => (r as unknown as { score: number }).score > 3);
    expect(matchChange(second.sub, leaving, all)).toMatchObject({ action: 'leave' });
    expect(second.asked).toEqual([leaving.after, leaving.before]);
  });

  it('a record leaving the subscriber\'s sight is still judged by its visibility before and after', () => {
    const change = update({ score: 5, owner: 'me' }, { score: 5, owner: 'other' });
    const { sub } = counting('score', () => true);
    const visible = (r: StoredRecord) => (r as unknown as { owner: string }).owner === 'me';
    expect(matchChange(sub, change, visible)).toBeNull();
    expect(matchChange(sub, update({ score: 5, owner: 'other' }, { score: 5, owner: 'me' }), visible)).toMatchObject({ action: 'enter' });
  });

  it('shared wheres give the events they gave when every update was evaluated twice', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 100, maxWhereCostPerApp: 10_000 });
    const sources: Array<{ [key: string]: Json }> = [{ tag: { $in: ['a', 'b'] } }, { n: { $gt: 2 } }, { tag: 'a', n: { $lt: 5 } }, {}, { 'o.k': 1 }, { $or: [{ n: 1 }, { tag: { $exists: false } }] }];
    const records = [{}, { tag: 'a' }, { tag: ['x', 'b'], n: 3 }, { n: 1 }, { n: 7, tag: 'z' }, { o: { k: 1 } }, { o: { k: 2 }, n: 3 }];
    for (const where of sources) {
      const shared = wheres.acquire({ app, className: 'T', where, schema: null, hidden: new Set() }, () => {});
      const screened: WhereSubscription = { kind: 'where', id: 'a', className: 'T', cost: 1, columns: shared.named, hidden: new Set(), matches: (r) => shared.matches(r), namesAny: (c) => shared.namesAny(c), release() {} };
      const twice: WhereSubscription = { ...screened, namesAny: () => true };
      for (const before of records) for (const after of records) {
        const change = update(before, after);
        expect([where, before, after, matchChange(screened, change, all)]).toEqual([where, before, after, matchChange(twice, update(before, after), all)]);
      }
    }
  });
});
