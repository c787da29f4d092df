import { describe, expect, it } from 'vitest';
import type { AggregatePlan, FindPlan, TableSchema, WhereNode } from '../../src/query/plan.js';
import { UNITS_PER_STALL_MS, aggregateRowCap, findRowCap, inlineAggregate, inlineCount, inlineFind } from '../../src/storage/sqlite/read-cost.js';

const LIMIT = 250 * UNITS_PER_STALL_MS;

const schema: TableSchema = {
  className: 'Doc',
  columns: { score: { type: 'Number' }, tags: { type: 'Array' }, email: { type: 'String' }, text: { type: 'String' } },
  indexes: [{ name: 'email', columns: ['email'], unique: true }],
};
const field = (column: string) => ({ column, path: [] });
const plan = (where: WhereNode): FindPlan => ({ where, order: [], skip: 0, limit: 100, projection: { kind: 'all' } });
const score: WhereNode = { kind: 'compare', field: field('score'), op: 'gte', value: 5 };

describe('which SQLite reads run inline', () => {
  it('D2: scalar comparisons over a table of bounded size run inline; past the bound they do not', () => {
    expect(inlineFind(schema, plan(score), 100_000, LIMIT)).toBe(true);
    expect(inlineCount(schema, score, 100_000, LIMIT)).toBe(true);
    expect(inlineFind(schema, plan(score), LIMIT, LIMIT)).toBe(false);
  });

  it('D2: regexes and array operators never run inline, whatever the table size', () => {
    expect(inlineFind(schema, plan({ kind: 'regex', field: field('text'), pattern: 'a', flags: '' }), 10, LIMIT)).toBe(false);
    expect(inlineFind(schema, plan({ kind: 'in', field: field('tags'), negate: false, values: [1, 2] }), 10, LIMIT)).toBe(false);
  });

  it('D2: a lookup pinned to one record (objectId, a unique column) runs inline at any table size', () => {
    const byId: WhereNode = { kind: 'and', nodes: [{ kind: 'compare', field: field('objectId'), op: 'eq', value: 'x' }, score] };
    expect(inlineFind(schema, plan(byId), 1e9, LIMIT)).toBe(true);
    expect(inlineFind(schema, plan({ kind: 'compare', field: field('email'), op: 'eq', value: 'a@b.c' }), 1e9, LIMIT)).toBe(true);
    expect(inlineFind(schema, plan({ kind: 'compare', field: field('text'), op: 'eq', value: 'a' }), 1e9, LIMIT)).toBe(false);
  });

  it('D2: the row cap of an index probe is exactly the largest row count that still runs inline', () => {
    const sorted: FindPlan = { ...plan(score), order: [{ field: field('score'), descending: true }], skip: 40, limit: 60 };
    const sum: AggregatePlan = { where: score, groupBy: [{ column: 'text', byDay: false }], aggregates: [{ fn: 'sum', column: 'score', alias: '_sumScore' }], groupCount: false, having: { kind: 'all_records' }, order: [], skip: 0, limit: 100, timeZone: 'UTC' };
    for (const limit of [20_000, 1_000_000, LIMIT]) {
      const findCap = findRowCap(schema, sorted, limit);
      expect(inlineFind(schema, sorted, findCap, limit)).toBe(true);
      expect(inlineFind(schema, sorted, findCap + 1, limit)).toBe(false);
      const aggregateCap = aggregateRowCap(schema, sum, limit);
      expect(inlineAggregate(schema, sum, aggregateCap, limit)).toBe(true);
      expect(inlineAggregate(schema, sum, aggregateCap + 1, limit)).toBe(false);
    }
    expect(findRowCap(schema, plan({ kind: 'regex', field: field('text'), pattern: 'a', flags: '' }), LIMIT)).toBe(0);
  });
});
