/**
 * The benchmark data set: a `Bench` table of deterministic records (the same bytes every run), sized
 * so that every query shape matches a fixed number of rows whatever the table size: ~100 records per
 * category, scores uniform in [0, 1e6), ten levels.
 */
import type { DateValue, StoredRecord, Value } from '../src/core/values.js';
import type { ColumnSchema } from '../src/query/plan.js';
import { prng } from './harness.js';

export const CLASS_NAME = 'Bench';
export const NAMESPACE = 'bench';
export const SCORE_MAX = 1_000_000;
/** Records a query matches (count, groupby) whatever the table size. */
export const MATCHED = 1000;
export const START_MS = Date.UTC(2025, 0, 1);

export const BENCH_COLUMNS: Readonly<Record<string, ColumnSchema>> = {
  name: { type: 'String' },
  category: { type: 'String' },
  score: { type: 'Number' },
  level: { type: 'Number' },
  active: { type: 'Boolean' },
  tags: { type: 'Array' },
  address: { type: 'Object' },
  nickname: { type: 'String' },
};

/** Declared indexes: equality on category, range/order on score. */
export const BENCH_INDEXES = [
  { name: 'category', columns: ['category'], unique: false },
  { name: 'score', columns: ['score'], unique: false },
] as const;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A 10-character objectId unique per index, not in index order (like random ids). */
export function objectIdOf(i: number): string {
  // Odd multiplication and xor-shift are bijections on 32-bit integers: six base-62 digits of the
  // result (62^6 > 2^32) are unique; four more digits of another mix pad it to the usual length.
  let x = Math.imul(i, 0x9e3779b1) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  let pad = Math.imul(i ^ 0x5bd1e995, 0x27d4eb2d) >>> 0;
  let out = '';
  for (let k = 0; k < 6; k++) {
    out += ALPHABET[x % 62];
    x = Math.floor(x / 62);
  }
  for (let k = 0; k < 4; k++) {
    out += ALPHABET[pad % 62];
    pad = Math.floor(pad / 62);
  }
  return out;
}

export function categoryCount(size: number): number {
  return Math.max(1, Math.floor(size / 100));
}

function date(ms: number): DateValue {
  return { __type: 'Date', iso: new Date(ms).toISOString() };
}

/** The records of a table of `size` records, in creation order. Dates are one second apart, ascending. */
export function makeRecords(size: number, seed = 1): StoredRecord[] {
  return [...generateRecords(size, seed)];
}

/** {@link makeRecords} one record at a time (large tables are seeded without holding every record). */
export function* generateRecords(size: number, seed = 1): Generator<StoredRecord> {
  const random = prng(seed);
  const categories = categoryCount(size);
  for (let i = 0; i < size; i++) {
    const created = date(START_MS + i * 1000);
    const tagCount = Math.floor(random() * 5);
    const tags: Value[] = [];
    for (let t = 0; t < tagCount; t++) {
      const tag = `t${Math.floor(random() * 20)}`;
      if (!tags.includes(tag)) tags.push(tag);
    }
    const record: Record<string, Value> = {
      objectId: objectIdOf(i),
      createdAt: created,
      updatedAt: created,
      name: `user${i}`,
      category: `c${Math.floor(random() * categories)}`,
      score: Math.floor(random() * SCORE_MAX),
      level: 1 + Math.floor(random() * 10),
      active: random() < 0.5,
      tags,
      address: { city: `city${Math.floor(random() * 50)}`, zip: String(10000 + Math.floor(random() * 90000)) },
    };
    if (random() < 0.5) record.nickname = `nick${i % 997}`;
    yield record as StoredRecord;
  }
}

/** A score range [from, to) holding about `matched` records of a table of `size`. */
export function scoreRange(size: number, position: number, matched = MATCHED): [number, number] {
  const width = Math.max(1, Math.round((SCORE_MAX * matched) / size));
  const from = Math.floor(position * (SCORE_MAX - width));
  return [from, from + width];
}
