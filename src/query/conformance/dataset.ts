import type { StoredRecord, Value } from '../../core/values.js';
import type { ColumnSchema } from '../plan.js';

/**
 * The data set of the query conformance suite: players with every column type, teams they point
 * to, and a Relation from teams to players. Every case in cases.ts was computed by hand from it.
 */
export interface ConformanceTable {
  readonly className: string;
  readonly columns: Readonly<Record<string, ColumnSchema>>;
  readonly records: readonly StoredRecord[];
  /** Relation memberships: column -> owner objectId -> related objectIds. */
  readonly relations?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

const at = (minute: number) => ({ __type: 'Date', iso: `2024-01-01T00:0${minute}:00.000Z` }) as const;
const date = (iso: string) => ({ __type: 'Date', iso }) as const;
const team = (objectId: string) => ({ __type: 'Pointer', className: 'Team', objectId }) as const;
const geo = (latitude: number, longitude: number) => ({ __type: 'GeoPoint', latitude, longitude }) as const;

function record(objectId: string, minute: number, fields: Record<string, Value>): StoredRecord {
  return { objectId, createdAt: at(minute), updatedAt: at(minute), ...fields } as StoredRecord;
}

export const TEAM: ConformanceTable = {
  className: 'Team',
  columns: {
    name: { type: 'String' },
    city: { type: 'String' },
    winPct: { type: 'Number' },
    members: { type: 'Relation', targetClass: 'Player' },
  },
  records: [
    record('T1', 1, { name: 'Red', city: 'Paris', winPct: 0.7 }),
    record('T2', 2, { name: 'Blue', city: 'Berlin', winPct: 0.4 }),
    record('T3', 3, { name: 'Green', city: 'Madrid', winPct: 0.9 }),
  ],
  relations: { members: { T1: ['p01', 'p03', 'p07'], T2: ['p02', 'p06'], T3: ['p05'] } },
};

export const PLAYER: ConformanceTable = {
  className: 'Player',
  columns: {
    name: { type: 'String' },
    score: { type: 'Number' },
    tags: { type: 'Array' },
    profile: { type: 'Object' },
    born: { type: 'Date' },
    active: { type: 'Boolean' },
    team: { type: 'Pointer', targetClass: 'Team' },
    location: { type: 'GeoPoint' },
    hometown: { type: 'String' },
  },
  records: [
    record('p01', 1, {
      name: 'Alice', score: 10, tags: ['a', 'b'], profile: { city: 'Paris', level: 3 }, born: date('1990-05-01T00:00:00.000Z'),
      active: true, team: team('T1'), location: geo(48.85, 2.35), hometown: 'Paris',
    }),
    record('p02', 2, {
      name: 'bob', score: 20, tags: ['b', 'c'], profile: { city: 'Berlin', level: 1 }, born: date('1985-01-01T00:00:00.000Z'),
      active: false, team: team('T2'), location: geo(52.52, 13.4), hometown: 'Berlin',
    }),
    record('p03', 3, {
      name: 'Carol', score: 30, tags: [], profile: { city: 'Paris', level: 2, when: date('2020-01-01T00:00:00.000Z') },
      active: true, team: team('T1'), location: geo(48.86, 2.29), hometown: 'Lyon',
    }),
    record('p04', 4, { name: 'dave', born: date('2000-12-31T00:00:00.000Z'), hometown: 'Paris' }),
    record('p05', 5, {
      name: 'Eve', score: 20, tags: ['a', 1, null], profile: { city: null, level: 5 }, born: date('1990-05-01T00:00:00.000Z'),
      active: false, team: team('T3'), location: geo(40.71, -74), hometown: 'Madrid',
    }),
    record('p06', 6, { name: 'Élodie', score: 5.5, tags: ['c'], profile: { level: 4, tags: ['x'] }, active: true, team: team('T2'), location: geo(41.39, 2.17) }),
    record('p07', 6, { score: -3, tags: [['a', 'b']], profile: { city: 'Berlin' }, team: team('T1'), hometown: 'Berlin' }),
    record('p08', 8, { name: 'frank', score: 100, tags: ['a', 'b', 'c'], born: date('1970-01-01T00:00:00.000Z'), active: true, location: geo(-33.87, 151.21), hometown: 'Sydney' }),
  ],
};

export const CONFORMANCE_TABLES: readonly ConformanceTable[] = [TEAM, PLAYER];
