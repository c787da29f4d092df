import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import type { Json } from '../../src/core/wire-values.js';
import { parseWrite } from '../../src/operators/parse-write.js';
import type { TableSchema } from '../../src/query/plan.js';

const schema: TableSchema = {
  className: 'Game',
  columns: {
    score: { type: 'Number' },
    name: { type: 'String' },
    tags: { type: 'Array' },
    address: { type: 'Object' },
    owner: { type: 'Pointer', targetClass: '_User' },
    likes: { type: 'Relation', targetClass: '_User' },
  },
  indexes: [],
};

const parse = (body: Record<string, Json>, s: TableSchema | null = schema) => parseWrite(body, { schema: s, timeZone: 'UTC' });

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('parseWrite', () => {
  it('turns plain values into set and null into unset', () => {
    const plan = parse({ score: 3, name: null });
    expect(plan.ops).toEqual([
      { kind: 'set', column: 'score', path: [], value: 3 },
      { kind: 'unset', column: 'name', path: [] },
    ]);
    expect(plan.columns).toEqual({ score: { type: 'Number' } });
  });

  it('parses Increment with default and negative amounts', () => {
    expect(parse({ score: { __op: 'Increment' } }).ops).toEqual([{ kind: 'increment', column: 'score', path: [], amount: 1 }]);
    expect(parse({ score: { __op: 'Increment', amount: -5 } }).ops[0]).toMatchObject({ amount: -5 });
  });

  it('refuses Increment on a non-number column and a non-numeric amount', () => {
    expect(codeOf(() => parse({ name: { __op: 'Increment' } }))).toBe(111);
    expect(codeOf(() => parse({ score: { __op: 'Increment', amount: '1' } }))).toBe(107);
  });

  it('parses array operations and needs an objects array', () => {
    expect(parse({ tags: { __op: 'AddUnique', objects: ['a', { __type: 'Date', iso: '2026-01-02 03:04:05' }] } }).ops[0]).toEqual({
      kind: 'add_unique',
      column: 'tags',
      path: [],
      objects: ['a', { __type: 'Date', iso: '2026-01-02T03:04:05.000Z' }],
    });
    expect(codeOf(() => parse({ tags: { __op: 'Add', objects: 'a' } }))).toBe(107);
    expect(codeOf(() => parse({ score: { __op: 'Add', objects: [1] } }))).toBe(111);
  });

  it('parses relation operations and checks their class', () => {
    const p = (id: string, className = '_User') => ({ __type: 'Pointer', className, objectId: id });
    expect(parse({ likes: { __op: 'AddRelation', objects: [p('a'), p('b'), p('a')] } }).ops[0]).toEqual({
      kind: 'add_relation',
      column: 'likes',
      targetClass: '_User',
      ids: ['a', 'b'],
    });
    expect(codeOf(() => parse({ likes: { __op: 'AddRelation', objects: [p('a', 'Post')] } }))).toBe(111);
    expect(codeOf(() => parse({ fans: { __op: 'AddRelation', objects: [p('a'), p('b', 'Post')] } }))).toBe(107);
    expect(codeOf(() => parse({ likes: { __op: 'AddRelation', objects: ['a'] } }))).toBe(106);
    expect(codeOf(() => parse({ likes: 3 }))).toBe(111);
    expect(parse({ likes: { __op: 'RemoveRelation', objects: [] } }).ops).toEqual([]);
  });

  it('refuses unknown and malformed __op values', () => {
    expect(codeOf(() => parse({ score: { __op: 'Multiply', amount: 2 } }))).toBe(107);
    expect(codeOf(() => parse({ score: { __op: 7 } }))).toBe(107);
    expect(codeOf(() => parse({ tags: ['a', { __op: 'Delete' }] }))).toBe(107);
  });

  it('parses Delete', () => {
    expect(parse({ name: { __op: 'Delete' } }).ops).toEqual([{ kind: 'unset', column: 'name', path: [] }]);
  });

  it('parses dot keys into paths on Object columns (and Array columns by index)', () => {
    expect(parse({ 'address.city': 'Paris' }).ops).toEqual([{ kind: 'set', column: 'address', path: ['city'], value: 'Paris' }]);
    expect(parse({ 'tags.0.name': 'x' }).ops[0]).toMatchObject({ column: 'tags', path: ['0', 'name'] });
    expect(parse({ 'fresh.a': 1 }, null).columns).toEqual({ fresh: { type: 'Object' } });
    expect(codeOf(() => parse({ 'name.first': 'x' }))).toBe(111);
    expect(codeOf(() => parse({ 'tags.first': 'x' }))).toBe(111);
  });

  it('refuses reserved, invalid and forbidden names', () => {
    for (const key of ['objectId', 'createdAt', 'updatedAt', 'ACL']) expect(codeOf(() => parse({ [key]: 1 }))).toBe(105);
    for (const key of ['1abc', 'a-b', "x'; DROP TABLE t; --", 'a b', '', '_hidden']) expect(codeOf(() => parse({ [key]: 1 }))).toBe(105);
    expect(codeOf(() => parse(JSON.parse('{"__proto__": {"x": 1}}')))).toBe(11004);
    expect(codeOf(() => parse({ constructor: 1 }))).toBe(11004);
    expect(codeOf(() => parse({ 'address.__proto__': 1 }))).toBe(11004);
    expect(codeOf(() => parse({ address: JSON.parse('{"a": {"__proto__": 1}}') }))).toBe(11004);
    expect(codeOf(() => parse({ 'address..x': 1 }))).toBe(105);
  });

  it('refuses values that do not fit the column type, and conflicting keys', () => {
    expect(codeOf(() => parse({ score: 'ten' }))).toBe(111);
    expect(codeOf(() => parse({ owner: { __type: 'Pointer', className: 'Post', objectId: 'x' } }))).toBe(111);
    expect(codeOf(() => parse({ address: { a: 1 }, 'address.city': 'x' }))).toBe(11005);
  });

  it('refuses malformed typed values', () => {
    expect(codeOf(() => parse({ when: { __type: 'Date' } }))).toBe(107);
    expect(codeOf(() => parse({ when: { __type: 'Date', iso: 'yesterday' } }))).toBe(107);
    expect(codeOf(() => parse({ p: { __type: 'Pointer', className: 'A' } }))).toBe(106);
    expect(codeOf(() => parse({ g: { __type: 'GeoPoint', latitude: 91, longitude: 0 } }))).toBe(117);
    expect(codeOf(() => parse({ g: { __type: 'GeoPoint', latitude: 1 } }))).toBe(102);
    expect(codeOf(() => parse({ f: { __type: 'File', url: 'x' } }))).toBe(11005);
  });

  it('refuses bodies nested deeper than the limit', () => {
    let deep: Json = 1;
    for (let i = 0; i < 200; i++) deep = { a: deep };
    expect(codeOf(() => parse({ address: deep }))).toBe(11003);
  });

  it('declares a Relation column from a Relation value', () => {
    expect(parse({ fans: { __type: 'Relation', className: 'Post' } }, null)).toEqual({ ops: [], columns: { fans: { type: 'Relation', targetClass: 'Post' } } });
  });
});
