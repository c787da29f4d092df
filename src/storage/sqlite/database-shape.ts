/**
 * The few better-sqlite3 methods the SQLite adapter calls, described by shape (house style #10): the
 * core never imports the driver, and hosts choose its version. A better-sqlite3 `Database` satisfies
 * this interface as is.
 */
export interface SqliteStatement {
  run(...params: unknown[]): { readonly changes: number };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /**
   * better-sqlite3: rows as arrays of column values (`true`) or objects (`false`). Optional: without
   * it the adapter reads rows as objects.
   */
  raw?(toggle?: boolean): SqliteStatement;
}

/** A transaction function as better-sqlite3 builds it: call it, or call `.immediate()` (BEGIN IMMEDIATE). */
export interface SqliteTransactionFn<R> {
  (): R;
  immediate(): R;
}

export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  exec(sql: string): unknown;
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** Wraps `fn` in BEGIN/COMMIT; inside an open transaction it becomes a savepoint. */
  transaction<R>(fn: () => R): SqliteTransactionFn<R>;
  function(name: string, options: { deterministic?: boolean; varargs?: boolean }, fn: (...args: never[]) => unknown): unknown;
  close(): unknown;
  readonly inTransaction: boolean;
  /** False once closed. */
  readonly open?: boolean;
  /** better-sqlite3: the file name; reader workers open it (with `memory` false). */
  readonly name?: string;
  /** better-sqlite3: true for `:memory:` and temporary databases (no reader workers). */
  readonly memory?: boolean;
}
