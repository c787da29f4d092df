import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { parseListQuery } from '../../src/query/parse.js';
import { conformanceFixture, parseContext } from './helpers/context.js';

/**
 * SQL metacharacters and quotes in every string position of a list query: the parser may refuse
 * them (SvcError) or treat them as values; SQLite must never see them as SQL. A canary table must
 * survive untouched.
 */
const RUNS = Number(process.env.FC_RUNS ?? 250);
const fixture = conformanceFixture();

const PAYLOADS = [
  "'; DROP TABLE canary; --",
  '"; DROP TABLE canary; --',
  "x' OR '1'='1",
  '" OR 1=1 --',
  '`canary`',
  '\\',
  '%',
  '_',
  '$."a"',
  '$[0]',
  "')--",
  '/* */',
  '; DELETE FROM canary',
  '"app__Player"',
  'name", "canary',
  '\u0000',
  '[a|b]',
  '.',
  ',',
  '-',
  '$where',
  '__proto__',
  'constructor',
];
const hostile = fc.oneof(
  fc.constantFrom(...PAYLOADS),
  fc.array(fc.constantFrom(...PAYLOADS, 'a', 'name', 'score', ' ', '.', '$'), { minLength: 1, maxLength: 4 }).map((p) => p.join('')),
  fc.string({ unit: fc.constantFrom("'", '"', ';', '-', '/', '*', '\\', '%', '_', '$', '.', '[', ']', '(', ')', '`', 'a', ' ', '\n', '|', ',') }),
);

/** Every string position of a list query, filled with `h`. */
function positions(h: string): Array<Record<string, string>> {
  const w = (where: unknown) => ({ where: JSON.stringify(where) });
  return [
    w({ name: h }),
    w({ name: { $in: [h, 'a'] } }),
    w({ name: { $ne: h } }),
    w({ tags: h }),
    w({ tags: { $all: [h] } }),
    w({ 'profile.city': h }),
    w({ profile: { [h]: h } }),
    w({ name: { $regex: h } }),
    w({ name: { $regex: 'a', $options: h } }),
    w({ [h]: 1 }),
    w({ [`profile.${h}`]: 1 }),
    w({ name: { [`$${h}`]: 1 } }),
    w({ createdAt: { $gt: h } }),
    w({ born: { __type: 'Date', iso: h } }),
    w({ team: { __type: 'Pointer', className: h, objectId: h } }),
    w({ team: { $inQuery: { className: h, where: {} } } }),
    w({ team: { $inQuery: { className: 'Team', where: { [h]: h } } } }),
    w({ hometown: { $select: { query: { className: 'Team', where: {} }, key: h } } }),
    w({ $relatedTo: { object: { __type: 'Pointer', className: 'Team', objectId: h }, key: 'members' } }),
    w({ $relatedTo: { object: { __type: 'Pointer', className: 'Team', objectId: 'T1' }, key: h } }),
    { order: h },
    { order: `-${h}` },
    { keys: h },
    { keys: `-${h}` },
    { include: h },
    { limit: h },
    { skip: h },
    { count: h },
    { groupby: h },
    { sum: h },
    { max: h },
    { groupby: 'name', order: h },
    { groupby: 'name', groupcount: 'true', having: JSON.stringify({ [h]: { $gt: 1 } }) },
    { groupby: 'name', groupcount: 'true', having: JSON.stringify({ name: h }) },
    { where: h },
  ];
}

function canary(): unknown {
  return fixture.db.prepare('SELECT secret FROM canary').all();
}

describe('injection fuzz', () => {
  beforeAll(() => {
    fixture.db.exec(`CREATE TABLE canary (secret TEXT); INSERT INTO canary VALUES ('tweet')`);
  });
  afterAll(() => fixture.close());

  it(`refuses or binds hostile strings in every position (${RUNS} strings)`, () => {
    let refused = 0;
    let ran = 0;
    fc.assert(
      fc.property(hostile, (h) => {
        for (const params of positions(h)) {
          let q;
          try {
            q = parseListQuery(new URLSearchParams(params), parseContext(fixture, 'Player'));
          } catch (err) {
            if (!isSvcError(err)) throw err;
            refused++;
            continue;
          }
          ran++;
          if (q.kind === 'find') expect(fixture.sqlFind('Player', q.plan)).toEqual(fixture.memoryFind('Player', q.plan));
          else if (q.kind === 'count') expect(fixture.sqlCount('Player', q.where)).toBe(fixture.memoryCount('Player', q.where));
          else expect(fixture.sqlAggregate('Player', q.plan)).toEqual(fixture.memoryAggregate('Player', q.plan));
        }
        expect(canary()).toEqual([{ secret: 'tweet' }]);
      }),
      { seed: 99, numRuns: RUNS },
    );
    expect(refused).toBeGreaterThan(0);
    expect(ran).toBeGreaterThan(0);
    expect(fixture.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all()).toEqual([
      { name: 'app__Player' },
      { name: 'app__Team' },
      { name: 'app__Team$members' },
      { name: 'canary' },
    ]);
  });
});
