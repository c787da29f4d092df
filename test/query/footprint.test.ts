import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { MAX_INNER_QUERIES } from '../../src/query/parse/context.js';
import { ANY_TABLE, listQueryFootprint, parseListQuery, referencedClasses } from '../../src/query/parse.js';
import { caseSearchParams } from '../../src/query/conformance/cases.js';
import { conformanceFixture, parseContext } from './helpers/context.js';

const fixture = conformanceFixture();
const parse = (params: Record<string, unknown>) => parseListQuery(caseSearchParams(params as never), parseContext(fixture, 'Player'));
const inner = (i: number) => ({ [`p${i}`]: { $inQuery: { className: `T${i}`, where: { [`c${i}`]: 1 } } } });

describe('D1: the footprint of a parsed query', () => {
  it('D1: names every inner table and column, however many and however deep', () => {
    const nested = { a: { $inQuery: { className: 'A', where: { b: { $select: { query: { className: 'B', where: { x: 1 } }, key: 'k' } } } } } };
    const where = { $or: [...Array.from({ length: MAX_INNER_QUERIES - 2 }, (_, i) => inner(i)), nested] };
    const footprint = listQueryFootprint(parse({ where, order: '-score', keys: 'name', include: 'team.owner[secret]' }), 'Player');
    for (let i = 0; i < MAX_INNER_QUERIES - 2; i++) expect([...footprint.get(`T${i}`)!]).toEqual([`c${i}`]);
    expect([...footprint.get('A')!]).toEqual(['b']);
    expect([...footprint.get('B')!].sort()).toEqual(['k', 'x']);
    expect([...footprint.get('Player')!]).toEqual(expect.arrayContaining(['a', 'score', 'name', 'team', 'p0']));
    expect([...footprint.get(ANY_TABLE)!].sort()).toEqual(['owner', 'secret']);
  });

  it('D1: more inner queries than the bound are refused with 11100, never truncated', () => {
    const where = { $or: Array.from({ length: MAX_INNER_QUERIES + 1 }, (_, i) => inner(i)) };
    let code = 0;
    try {
      parse({ where });
    } catch (error) {
      if (isSvcError(error)) code = error.code;
    }
    expect(code).toBe(11100);
  });

  it('D1: referencedClasses has no cut-off', () => {
    const where = { $or: Array.from({ length: 100 }, (_, i) => inner(i)) };
    expect(referencedClasses(JSON.stringify(where))).toHaveLength(100);
  });
});
