import { registerSqliteFunctions } from '../../query/sql/index.js';
import { type AdapterShellParts, adapterShell } from '../kit/adapter-shell.js';
import type { Awaitable, StorageAdapter, StorageCapabilities } from '../port.js';
import type { Clock } from '../../core/clock.js';
import { connectionGate } from '../../core/connection-gate.js';
import type { Ticker } from '../../core/ticker.js';
import { configError } from '../../core/errors.js';
import type { SqliteDatabase } from './database-shape.js';
import { SqliteReads } from './read-dispatch.js';
import { readerSpawner } from './reader-entry.js';
import { startCheckpointer } from './checkpointer.js';
import { ReaderPool } from './reader-pool.js';
import { SqliteCore } from './sqlite-core.js';
import { enableWal } from './wal-mode.js';
import { driverBase } from './sqlite-driver.js';

export interface SqliteStorageOptions {
  /** An open better-sqlite3 `Database` (or anything with the same shape). */
  readonly database: SqliteDatabase;
  /** Milliseconds a statement waits for another process's lock (default 5000). */
  readonly busyTimeoutMs?: number;
  /** Close the database in `close()` (default true). */
  readonly closeDatabase?: boolean;
  /** Adapter name in logs (default `sqlite`). */
  readonly name?: string;
  /**
   * Reader workers (worker_threads, each with a read-only connection) that run the reads whose cost
   * is not provably small (default 2; 0: none). File databases only.
   */
  readonly readers?: number;
  /** Budget of a read whose caller names none, in ms (default 5000; 11090 past it). */
  readonly queryBudgetMs?: number;
  /**
   * Longest a read may hold the caller's thread, in ms (default 250): the deadline of reads that
   * cannot go to a worker (in a transaction, `:memory:`, `readers: 0`), and the grace after its
   * budget before a silent worker is terminated.
   */
  readonly stallBoundMs?: number;
  /** Reads waiting for a busy worker beyond which new ones get 11091 (default 32). */
  readonly maxQueuedReads?: number;
  /**
   * Clock of the reader workers' budgets (default the system clock; tests). A read's budget counts
   * from its submission: one still waiting for a worker when it runs out answers 11091 unrun.
   */
  readonly clock?: Clock;
  /** Runs the check of waiting reads' budgets (default `setInterval`, every 50 ms while reads wait; tests pass a manual one). */
  readonly ticker?: Ticker;
  /**
   * Page cache of each connection (the writer's and every reader worker's), in KiB (default 32768:
   * 32 MiB; SQLite's own default is 2 MiB, which large tables outgrow at once). `cache_size`.
   */
  readonly cacheSizeKiB?: number;
  /**
   * Bytes of the database file read through memory mapping, per connection (default 256 MiB; 0 turns
   * it off). Mapped pages live in the OS page cache, shared by every connection. `mmap_size`.
   */
  readonly mmapSizeBytes?: number;
  /**
   * File databases: write-ahead-log checkpoints run on a worker thread of their own every this many
   * ms (default 1000), instead of inside the commit that crosses SQLite's threshold (the cause of
   * write latency spikes); 0 leaves them inline, as SQLite does by default.
   */
  readonly checkpointIntervalMs?: number;
}

/** The connection tuning every connection of the adapter gets (the writer and the reader workers). */
export interface SqliteTuning {
  readonly cacheSizeKiB: number;
  readonly mmapSizeBytes: number;
}

function tuningOf(options: SqliteStorageOptions): SqliteTuning {
  const whole = (value: number | undefined, fallback: number, name: string): number => {
    const n = value ?? fallback;
    if (!Number.isSafeInteger(n) || n < 0) throw configError('sqlite', `${name} must be a non-negative integer`);
    return n;
  };
  return {
    cacheSizeKiB: whole(options.cacheSizeKiB, 32 * 1024, 'cacheSizeKiB'),
    mmapSizeBytes: whole(options.mmapSizeBytes, 256 * 1024 * 1024, 'mmapSizeBytes'),
  };
}

/** Applies {@link SqliteTuning} to one connection (negative cache_size means KiB to SQLite). */
export function applyTuning(db: Pick<SqliteDatabase, 'pragma'>, tuning: SqliteTuning): void {
  db.pragma(`cache_size = -${tuning.cacheSizeKiB}`);
  db.pragma(`mmap_size = ${tuning.mmapSizeBytes}`);
}

/** The reader pool of a file database, or null (`:memory:`, `readers: 0`, no worker file). */
function readerPool(db: SqliteDatabase, options: SqliteStorageOptions, busyTimeoutMs: number, tuning: SqliteTuning): ReaderPool | null {
  const size = Math.max(0, Math.floor(options.readers ?? 2));
  if (size === 0 || db.memory !== false || typeof db.name !== 'string') return null;
  const spawn = readerSpawner();
  if (!spawn) return null;
  return new ReaderPool({
    spawn,
    data: { file: db.name, busyTimeoutMs, driverFrom: driverBase(), tuning },
    size,
    maxQueued: Math.max(0, Math.floor(options.maxQueuedReads ?? 32)),
    graceMs: options.stallBoundMs ?? 250,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ticker ? { ticker: options.ticker } : {}),
  });
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ transactions: true, updateReturnsBefore: true });

/**
 * Storage in SQLite through better-sqlite3: the embedded default. Sets WAL mode,
 * `synchronous=NORMAL` and a busy timeout; keeps table schemas in `_svc_schema`/`_svc_indexes` and
 * adds typed columns on demand (layout: src/query/sql/layout.ts); registers the SQL functions the
 * query compiler calls (`svc_regex`, ...). Every value is bound and every identifier validated and quoted.
 *
 * Operations are synchronous and atomic (one statement, or one IMMEDIATE transaction for
 * read-modify-write updates). `transaction(work)` holds the connection for `work`: other callers'
 * operations wait (they return promises) until it commits or rolls back. Nested transactions are
 * savepoints. Inside `work`, use only the `tx` adapter it receives. Other stores sharing the
 * connection should go through {@link connectionGate} so they wait too.
 *
 * Several processes may share a database file: cached schemas are reloaded when SQLite's schema
 * cookie moved (checked at most once per event-loop turn), and schema changes re-read the schema
 * inside their transaction (src/storage/sqlite/schema-version.ts).
 *
 * Reads run under a time budget (`ReadOptions.budgetMs`, else `queryBudgetMs`; 11090 past it). A read
 * whose cost is provably small runs inline; any other read of a file database runs on a reader
 * worker with its own read-only connection, so it never holds the caller's thread (see
 * read-dispatch.ts and docs/adapters.md). `close()` terminates the workers.
 *
 * @example sqliteStorage({ database: new Database('app.db') })
 */
export function sqliteStorage(options: SqliteStorageOptions): StorageAdapter {
  const { database: db } = options;
  const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  enableWal(db, busyTimeoutMs);
  db.pragma('synchronous = NORMAL');
  const tuning = tuningOf(options);
  applyTuning(db, tuning);
  registerSqliteFunctions(db);
  const core = new SqliteCore(db);
  const pool = readerPool(db, options, busyTimeoutMs, tuning);
  const checkpointMs = Math.max(0, Math.floor(options.checkpointIntervalMs ?? 1000));
  const checkpointer = checkpointMs > 0 ? startCheckpointer(db, busyTimeoutMs, checkpointMs) : null;
  const reads = new SqliteReads(core, db, pool, { budgetMs: options.queryBudgetMs ?? 5000, stallMs: options.stallBoundMs ?? 250 });
  const gate = connectionGate(db);
  const name = options.name ?? 'sqlite';
  let depth = 0;

  const savepoint = async <T>(work: () => Promise<T>): Promise<T> => {
    const label = `svc_sp_${++depth}`;
    db.exec(depth === 1 ? 'BEGIN IMMEDIATE' : `SAVEPOINT ${label}`);
    try {
      const result = await work();
      db.exec(depth === 1 ? 'COMMIT' : `RELEASE ${label}`);
      return result;
    } catch (error) {
      if (depth === 1) {
        if (db.inTransaction) db.exec('ROLLBACK');
      } else {
        db.exec(`ROLLBACK TO ${label}`);
        db.exec(`RELEASE ${label}`);
      }
      core.invalidate();
      throw error;
    } finally {
      depth--;
    }
  };

  /** Reads inside a transaction stay on its connection; others may go to a reader worker. */
  const readsOf = (inTransaction: boolean): AdapterShellParts['reads'] => ({
    find: (ref, plan, read) => reads.find(ref, plan, read, inTransaction),
    count: (ref, where, read) => reads.count(ref, where, read, inTransaction),
    aggregate: (ref, plan, read) => reads.aggregate(ref, plan, read, inTransaction),
  });
  const tx: StorageAdapter = adapterShell({
    name,
    capabilities: CAPABILITIES,
    operations: core,
    reads: readsOf(true),
    transaction: (work) => savepoint(() => work(tx)),
    close: () => {},
  });

  return adapterShell({
    name,
    capabilities: CAPABILITIES,
    operations: core,
    reads: readsOf(false),
    // A read may itself answer with a promise (a worker); awaiting the gate's promise flattens it.
    run: (op) => gate.run(op) as ReturnType<typeof op>,
    transaction: (work) => gate.exclusive(() => savepoint(() => work(tx))),
    close: async () => {
      await pool?.close();
      await checkpointer?.close();
      await gate.run(() => {
        core.invalidate();
        if (options.closeDatabase !== false && db.open !== false) db.close();
      });
    },
  });
}
