import type { StoredRecord, Value } from '../../../core/values.js';
import { dateValue } from '../../../core/values.js';
import type { ColumnSchema } from '../../../query/plan.js';

/** The fixed data set of the query cases: players, scores and posts with a relation. */
export interface QueryData {
  readonly tables: ReadonlyArray<{ className: string; columns: Record<string, ColumnSchema>; records: StoredRecord[] }>;
  /** Post objectId -> liked player objectIds (Relation column `likes` of `Post`). */
  readonly likes: ReadonlyMap<string, readonly string[]>;
}

const BASE = Date.UTC(2026, 0, 1, 12, 0, 0, 0);
const HOUR = 3_600_000;

function rec(id: string, at: number, fields: Record<string, Value>): StoredRecord {
  return { objectId: id, createdAt: dateValue(at), updatedAt: dateValue(at), ...fields } as StoredRecord;
}

const pointer = (objectId: string) => ({ __type: 'Pointer', className: 'Player', objectId }) as const;
const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude }) as const;

/** Builds the data set; createdAt spreads over three days, some values are missing on purpose. */
export function queryData(): QueryData {
  const players = [
    rec('p01', BASE, { name: 'Lily', level: 3, vip: true }),
    rec('p02', BASE + HOUR, { name: 'lucas', level: 7 }),
    rec('p03', BASE + 2 * HOUR, { name: 'Mia', vip: false }),
    rec('p04', BASE + 3 * HOUR, { name: 'Noah', level: 7, vip: true }),
  ];
  const names = ['Sean', 'smile', 'Smiley', 'Mia', 'anna', 'Bob', 'sean', 'Émile', 'Zoë', 'Lily'];
  const scores = names.map((name, i) => {
    const fields: Record<string, Value> = { playerName: name };
    if (i % 5 !== 4) fields.score = (i * 37) % 11 - 3 + (i === 2 ? 0.5 : 0);
    if (i % 3 !== 2) fields.tags = i % 2 === 0 ? ['a', 'b', String(i)] : ['b', i];
    if (i !== 6) fields.when = dateValue(BASE - i * 10 * HOUR);
    if (i % 4 !== 3) fields.owner = pointer(players[i % 4]!.objectId);
    if (i % 3 !== 1) fields.place = geo(30 + i, -20 + i * 2);
    fields.meta = i % 2 === 0 ? { level: i, city: i < 5 ? 'Lyon' : 'Paris' } : { level: String(i) };
    if (i % 2 === 1) fields.done = i % 3 === 0;
    return rec(`s${String(i).padStart(2, '0')}`, BASE + (i % 7) * 5 * HOUR + i, fields);
  });
  const posts = [rec('q01', BASE, { title: 'first' }), rec('q02', BASE + HOUR, { title: 'second' })];
  return {
    tables: [
      { className: 'Player', columns: { name: { type: 'String' }, level: { type: 'Number' }, vip: { type: 'Boolean' } }, records: players },
      {
        className: 'Score',
        columns: {
          playerName: { type: 'String' },
          score: { type: 'Number' },
          tags: { type: 'Array' },
          when: { type: 'Date' },
          owner: { type: 'Pointer', targetClass: 'Player' },
          place: { type: 'GeoPoint' },
          meta: { type: 'Object' },
          done: { type: 'Boolean' },
        },
        records: scores,
      },
      { className: 'Post', columns: { title: { type: 'String' }, likes: { type: 'Relation', targetClass: 'Player' } }, records: posts },
    ],
    likes: new Map([
      ['q01', ['p01', 'p02', 'p04']],
      ['q02', ['p03']],
    ]),
  };
}
