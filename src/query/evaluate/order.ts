import type { StoredRecord } from '../../core/values.js';
import { compareSortKeys, compareStrings, sortKeyOf, type SortKey } from '../compare.js';
import type { FindPlan } from '../plan.js';
import type { Filter, Predicate } from './context.js';
import { compileGetter } from './field.js';
import { distanceGetter } from './operators/geo.js';
import { selectMatches } from './select.js';

/** How records are ordered: key extractors with directions; ties always break by objectId ascending. */
export interface SortSpec {
  readonly keys: ReadonlyArray<(r: StoredRecord) => SortKey>;
  readonly descending: readonly boolean[];
}

/** The default order: createdAt ascending (then objectId). */
export const DEFAULT_SORT: SortSpec = { keys: [(r) => r.createdAt.iso], descending: [false] };

/** The order of a find plan: explicit terms, else nearest first for `$nearSphere`, else default. */
export function sortSpecOf(plan: Pick<FindPlan, 'order' | 'nearest'>): SortSpec {
  if (plan.order.length > 0) {
    return {
      keys: plan.order.map((term) => {
        const get = compileGetter(term.field);
        return (r: StoredRecord) => sortKeyOf(get(r));
      }),
      descending: plan.order.map((t) => t.descending),
    };
  }
  if (plan.nearest) return { keys: [distanceGetter(plan.nearest.field, plan.nearest.point)], descending: [false] };
  return DEFAULT_SORT;
}

/**
 * Filters `records` with `filter` and returns matches [skip, skip+limit) of `spec`'s order: the
 * same result as `sortAndPage` over every match. It checks that the matches arrive in that order
 * (each one after the previous: keys, then objectId); when they do (the memory adapter keeps records
 * in insertion order, usually creation order) the sort is skipped and the page is a slice, otherwise
 * `sortAndPage` sorts (or heap-selects a small page). For an explicit order the check stops at the
 * first match out of order. Arrays (the common input) go through the filter's selector
 * (select.ts), other iterables through its test.
 */
export function filterSortAndPage(
  records: Iterable<StoredRecord>,
  filter: Filter,
  spec: SortSpec,
  skip: number,
  limit: number,
  knownInCreationOrder = false,
): StoredRecord[] {
  if (spec === DEFAULT_SORT && knownInCreationOrder) return filterPage(records, filter, skip, limit);
  const matching = Array.isArray(records) ? selectMatches(records as readonly StoredRecord[], filter, 0, Infinity) : filterAll(records, filter.test);
  const ordered = spec === DEFAULT_SORT ? inCreationOrder(matching) : inSpecOrder(matching, spec);
  if (!ordered) return sortAndPage(matching, spec, skip, limit);
  if (limit <= 0 || skip >= matching.length) return [];
  if (skip === 0 && limit >= matching.length) return matching;
  return matching.slice(skip, skip + limit);
}

/** Filters records already in order, stopping once the page is full. */
function filterPage(records: Iterable<StoredRecord>, filter: Filter, skip: number, limit: number): StoredRecord[] {
  if (limit <= 0) return [];
  if (Array.isArray(records)) return selectMatches(records as readonly StoredRecord[], filter, skip, skip + limit);
  const pred = filter.test;
  const page: StoredRecord[] = [];
  let toSkip = skip;
  for (const r of records) {
    if (!pred(r)) continue;
    if (toSkip > 0) {
      toSkip--;
      continue;
    }
    page.push(r);
    if (page.length >= limit) break;
  }
  return page;
}

function filterAll(records: Iterable<StoredRecord>, pred: Predicate): StoredRecord[] {
  const out: StoredRecord[] = [];
  for (const r of records) if (pred(r)) out.push(r);
  return out;
}

/**
 * Whether (createdAt, objectId) increases along `records`; stops at the first pair out of order.
 * Dates are canonical ISO text (ASCII, see core/values.ts), where the native string comparison is
 * `compareStrings`'s code point order; objectIds are compared only on equal dates. One tight pass
 * after the filter: the createdAt loads are cache misses on large tables, and a loop doing nothing
 * else overlaps them best.
 */
function inCreationOrder(records: readonly StoredRecord[]): boolean {
  const n = records.length;
  if (n < 2) return true;
  let prevIso = records[0]!.createdAt.iso;
  for (let i = 1; i < n; i++) {
    const iso = records[i]!.createdAt.iso;
    if (!(prevIso < iso) && (prevIso !== iso || compareStrings(records[i - 1]!.objectId, records[i]!.objectId) >= 0)) return false;
    prevIso = iso;
  }
  return true;
}

/** `inCreationOrder` for any other order: keys extracted per record until the first one out of order. */
function inSpecOrder(records: readonly StoredRecord[], spec: SortSpec): boolean {
  const m = spec.keys.length;
  const desc = spec.descending;
  let prev: SortKey[] = new Array<SortKey>(m);
  let cur: SortKey[] = new Array<SortKey>(m);
  for (let i = 0; i < records.length; i++) {
    const r = records[i]!;
    for (let j = 0; j < m; j++) cur[j] = spec.keys[j]!(r);
    if (i > 0) {
      let c = 0;
      for (let j = 0; j < m && c === 0; j++) {
        c = compareSortKeys(prev[j]!, cur[j]!);
        if (desc[j]) c = -c;
      }
      if (c > 0 || (c === 0 && compareStrings(records[i - 1]!.objectId, r.objectId) >= 0)) return false;
    }
    const t = prev;
    prev = cur;
    cur = t;
  }
  return true;
}

/**
 * Sorts and pages: returns records [skip, skip+limit) of the order. Ascending puts null first,
 * descending last. Keys are extracted once per record; when the page is small against the input
 * only the first skip+limit are selected with a bounded heap instead of a full sort.
 */
export function sortAndPage(records: readonly StoredRecord[], spec: SortSpec, skip: number, limit: number): StoredRecord[] {
  const n = records.length;
  const want = skip + limit;
  if (limit <= 0 || skip >= n) return [];
  const m = spec.keys.length;
  const keys: SortKey[] = new Array<SortKey>(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) keys[i * m + j] = spec.keys[j]!(records[i]!);
  const desc = spec.descending;
  const cmp = (a: number, b: number): number => {
    for (let j = 0; j < m; j++) {
      const c = compareSortKeys(keys[a * m + j]!, keys[b * m + j]!);
      if (c !== 0) return desc[j] ? -c : c;
    }
    return compareStrings(records[a]!.objectId, records[b]!.objectId);
  };
  const order = want < n / 4 ? smallest(n, want, cmp) : fullSort(n, cmp);
  const out: StoredRecord[] = [];
  for (let i = skip; i < order.length && i < want; i++) out.push(records[order[i]!]!);
  return out;
}

function fullSort(n: number, cmp: (a: number, b: number) => number): number[] {
  const idx = new Array<number>(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  return idx.sort(cmp);
}

/** The k smallest indices in order, via a max-heap of size k. */
function smallest(n: number, k: number, cmp: (a: number, b: number) => number): number[] {
  const heap: number[] = [];
  const siftUp = (i: number): void => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (cmp(heap[i]!, heap[p]!) <= 0) return;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const siftDown = (i: number): void => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && cmp(heap[l]!, heap[top]!) > 0) top = l;
      if (r < heap.length && cmp(heap[r]!, heap[top]!) > 0) top = r;
      if (top === i) return;
      [heap[i], heap[top]] = [heap[top]!, heap[i]!];
      i = top;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < k) {
      heap.push(i);
      siftUp(heap.length - 1);
    } else if (cmp(i, heap[0]!) < 0) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return heap.sort(cmp);
}
