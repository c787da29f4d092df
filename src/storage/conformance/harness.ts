import { afterEach, beforeEach, it } from 'vitest';
import { isSvcError } from '../../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import { dateValue } from '../../core/values.js';
import type { ColumnSchema } from '../../query/plan.js';
import type { StorageAdapter, TableRef } from '../port.js';

/** How the conformance suite gets and disposes of the adapter under test. */
export interface StorageConformanceOptions {
  /** Shown in the test names. */
  readonly name: string;
  /** A fresh adapter; called before every test. */
  readonly create: () => Promise<StorageAdapter> | StorageAdapter;
  /** Cleanup after `close()` (drop a database, delete a file). */
  readonly destroy?: (adapter: StorageAdapter) => Promise<void> | void;
  /** Tests to skip, by name, with the reason (shown in the report). */
  readonly skip?: { readonly reason: string; readonly tests: readonly string[] };
}

/** What every case file gets: the adapter of the running test and small builders. */
export interface Harness {
  /** The adapter of the running test. */
  adapter(): StorageAdapter;
  /** A table in this test's own namespace. */
  ref(className?: string, namespace?: string): TableRef;
  /** A record with a fresh objectId and timestamps at `ms` (default: a fixed instant plus a counter). */
  record(fields?: Record<string, Value>, ms?: number): StoredRecord;
  /** `ensureColumns` then `insert`; returns the record. */
  seed(ref: TableRef, columns: Record<string, ColumnSchema>, fields?: Record<string, Value>): Promise<StoredRecord>;
  /** Registers a test unless the options skip it. */
  test(name: string, fn: () => Promise<void>): void;
  /** A later `updatedAt`. */
  later(): DateValue;
}

const BASE_MS = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

/** Builds the harness and the per-test lifecycle hooks; call inside a `describe`. */
export function createHarness(options: StorageConformanceOptions): Harness {
  let current: StorageAdapter | undefined;
  let namespace = '';
  let counter = 0;
  let tests = 0;
  beforeEach(async () => {
    current = await options.create();
    namespace = `conf${++tests}`;
  });
  afterEach(async () => {
    const adapter = current;
    current = undefined;
    if (!adapter) return;
    await adapter.close();
    await options.destroy?.(adapter);
  });
  const skipped = new Set(options.skip?.tests ?? []);
  const h: Harness = {
    adapter() {
      if (!current) throw new Error('[svcbase] [conformance] no adapter: used outside a test');
      return current;
    },
    ref: (className = 'Item', ns = namespace) => ({ namespace: ns, className }),
    record(fields = {}, ms) {
      const n = ++counter;
      const at = dateValue(ms ?? BASE_MS + n);
      return { objectId: `id${String(n).padStart(8, '0')}`, createdAt: at, updatedAt: at, ...fields } as StoredRecord;
    },
    async seed(ref, columns, fields = {}) {
      await h.adapter().ensureColumns(ref, columns);
      const record = h.record(fields);
      await h.adapter().insert(ref, record);
      return record;
    },
    test(name, fn) {
      // An opt-out is reported as skipped with its stated reason, never silently dropped.
      const optedOut = skipped.has(name);
      it.skipIf(optedOut)(optedOut ? `${name} (skipped: ${options.skip?.reason ?? 'no reason given'})` : name, fn);
    },
    later: () => dateValue(BASE_MS + 86_400_000 + ++counter),
  };
  return h;
}

/** The SvcError code a promise rejects with (fails when it resolves or throws something else). */
export async function rejectionCode(work: () => unknown): Promise<number> {
  try {
    await work();
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
  throw new Error('expected a SvcError, but the operation succeeded');
}

/** Lets queued callbacks and I/O run once (not a timed sleep). */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
