import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { parseBql } from '../../src/query/bql/parse-bql.js';

const code = (work: () => unknown): number | undefined => {
  try {
    work();
    return undefined;
  } catch (error) {
    return isSvcError(error) ? error.code : -1;
  }
};

describe('BQL parser', () => {
  it('reads the hosted examples: select, from, limit before or after order by', () => {
    expect(parseBql('select * from Player limit 0,100 order by name')).toEqual({
      className: 'Player', where: {}, keys: [], order: ['name'], limit: 100, skip: 0, count: false, countOnly: false,
    });
    expect(parseBql('SELECT name, score FROM Player WHERE name = ? ORDER BY score DESC, name ASC LIMIT ?, ?', ['dennis', 0, 100])).toEqual({
      className: 'Player', where: { name: 'dennis' }, keys: ['name', 'score'], order: ['-score', 'name'], limit: 100, skip: 0, count: false, countOnly: false,
    });
  });

  it('turns conditions into the where of a list: and binds tighter than or, parentheses, in, exists, null', () => {
    expect(parseBql("select * from T where a = 1 or b != 'x' and c >= 2").where).toEqual({ $or: [{ a: 1 }, { $and: [{ b: { $ne: 'x' } }, { c: { $gte: 2 } }] }] });
    expect(parseBql('select * from T where (a < 1 or a > 5) and b in (1, 2, ?)', [3]).where).toEqual({
      $and: [{ $or: [{ a: { $lt: 1 } }, { a: { $gt: 5 } }] }, { b: { $in: [1, 2, 3] } }],
    });
    expect(parseBql('select * from T where a not in (?) and b is exists and c is not exists and d is null and e is not null', ['x']).where).toEqual({
      $and: [{ a: { $nin: ['x'] } }, { b: { $exists: true } }, { c: { $exists: false } }, { d: null }, { e: { $ne: null } }],
    });
    expect(parseBql("select * from T where at >= date('2026-01-01 00:00:00') and owner = pointer('_User', 'u1') and d.e <> true").where).toEqual({
      $and: [
        { at: { $gte: { __type: 'Date', iso: '2026-01-01 00:00:00' } } },
        { owner: { __type: 'Pointer', className: '_User', objectId: 'u1' } },
        { 'd.e': { $ne: true } },
      ],
    });
  });

  it('count(*) alone asks for the count only; with columns, for rows and the count', () => {
    expect(parseBql('select count(*) from T where a = 1')).toMatchObject({ count: true, countOnly: true, keys: [] });
    expect(parseBql('select count(*), * from T')).toMatchObject({ count: true, countOnly: false });
  });

  it('strings are values, never SQL: quotes, escapes and keywords inside them stay text', () => {
    expect(parseBql("select * from T where name = 'O''Brien' or name = \"a\\\"b\" or name = '; drop table T; --'").where).toEqual({
      $or: [{ name: "O'Brien" }, { name: 'a"b' }, { name: '; drop table T; --' }],
    });
  });

  it('every malformed statement answers 601 with where it stopped', () => {
    const cases: Array<[string, unknown[]]> = [
      ['', []],
      ['select * Player', []],
      ['select * from', []],
      ["select * from T where a = 'open", []],
      ['select * from T where a = ?', []],
      ['select * from T where a = 1', [2]],
      ['select * from T where select = 1', []],
      ['select * from T where a = 1 garbage', []],
      ['select * from T limit -1', []],
      ['select * from T limit ?', ['ten']],
      ['select * from T where a ~ 1', []],
      ['select * from T where a not = 1', []],
      [`select * from T where ${'('.repeat(40)}a = 1${')'.repeat(40)}`, []],
      [`select * from T where a = '${'x'.repeat(20_000)}'`, []],
      ["select * from T where d = date(1)", []],
    ];
    for (const [text, values] of cases) expect([text.slice(0, 60), code(() => parseBql(text, values as never[]))]).toEqual([text.slice(0, 60), 601]);
    expect(() => parseBql('select * from T where a = 1 garbage')).toThrow(/Invalid bql:unexpected text at 28/);
  });

  it('never throws anything but a coded error on arbitrary input (fixed seed; FC_RUNS for more)', () => {
    const pieces = fc.constantFrom('select', '*', 'from', 'T', 'where', 'a', '=', '?', '(', ')', 'and', 'or', 'in', ',', "'x'", '1', 'limit', 'order', 'by', 'desc', 'count(*)', 'not', 'is', 'exists', 'date(', 'pointer(');
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 30 }), fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 4 }), (words, values) => {
        const result = code(() => parseBql(words.join(' '), values));
        expect(result === undefined || result === 601).toBe(true);
      }),
      { seed: Number(process.env.FC_SEED ?? 601), numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const result = code(() => parseBql(text));
        expect(result === undefined || result === 601).toBe(true);
      }),
      { seed: Number(process.env.FC_SEED ?? 602), numRuns: Number(process.env.FC_RUNS ?? 500) },
    );
  });
});
