import type { CompiledQuery } from '../../query/sql/fragment.js';

/** A row as a driver returns it: column name -> value. */
export type SqlRow = Readonly<Record<string, unknown>>;

/**
 * One thing a SQL program asks of its driver:
 * - `rows`: a prepared statement's rows, as objects;
 * - `arrays`: a prepared statement's rows, as arrays of its selected columns in order;
 * - `row` / `array`: its first row only, as an object / an array (undefined when there is none);
 * - `write`: a prepared statement whose rows are not read; answers how many rows it changed;
 * - `schema`: a schema statement (DDL without parameters, or a bookkeeping write) that may race the
 *   same statement of another process; a driver may retry such races where it runs outside a transaction;
 * - `transaction`: a program run atomically (SQLite: IMMEDIATE; a savepoint or the open transaction
 *   when nested); answers the program's result;
 * - `await`: a promise of an asynchronous engine's own bookkeeping (PostgreSQL's schema cache), which
 *   the asynchronous runner awaits; the synchronous runner refuses it (a SQLite hook never yields it).
 */
export type SqlOp =
  | { readonly op: 'rows'; readonly query: CompiledQuery }
  | { readonly op: 'arrays'; readonly query: CompiledQuery }
  | { readonly op: 'row'; readonly query: CompiledQuery }
  | { readonly op: 'array'; readonly query: CompiledQuery }
  | { readonly op: 'write'; readonly query: CompiledQuery }
  | { readonly op: 'schema'; readonly query: CompiledQuery }
  | { readonly op: 'transaction'; readonly program: SqlProgram<unknown> }
  | { readonly op: 'await'; readonly promise: PromiseLike<unknown> };

/**
 * Storage logic written once for synchronous and asynchronous drivers: a generator that yields the
 * statements it needs and receives their results. A driver error is thrown into the generator at the
 * `yield`, so programs catch errors as ordinary code does. The helpers below read well; hot paths
 * yield the operation object itself (each helper is one more generator per statement).
 */
export type SqlProgram<T> = Generator<SqlOp, T, unknown>;

/** Yields a statement and hands back its rows. */
export function* rows(query: CompiledQuery): SqlProgram<SqlRow[]> {
  return (yield { op: 'rows', query }) as SqlRow[];
}

/** Yields a statement and hands back its rows as arrays. */
export function* arrays(query: CompiledQuery): SqlProgram<unknown[][]> {
  return (yield { op: 'arrays', query }) as unknown[][];
}

/** Yields a statement whose rows are not read; hands back how many rows it changed. */
export function* write(query: CompiledQuery): SqlProgram<number> {
  return (yield { op: 'write', query }) as number;
}

/** Runs a program atomically and hands back its result. */
export function* transaction<T>(program: SqlProgram<T>): SqlProgram<T> {
  return (yield { op: 'transaction', program }) as T;
}

/** Yields schema statements one by one. */
export function* schema(queries: readonly CompiledQuery[]): SqlProgram<void> {
  for (const query of queries) yield { op: 'schema', query };
}

/** Awaits a promise inside a program run by the asynchronous runner. */
export function* awaiting<T>(promise: PromiseLike<T>): SqlProgram<T> {
  return (yield { op: 'await', promise }) as T;
}

/** The operations a driver performs (the runner itself settles `await`). */
export type DriverOp = Exclude<SqlOp, { readonly op: 'await' }>;

/** A driver that answers each operation at once (better-sqlite3). */
export interface SyncSqlDriver {
  perform(op: DriverOp): unknown;
}

/** A driver that answers each operation later (postgres.js). */
export interface AsyncSqlDriver {
  perform(op: DriverOp): PromiseLike<unknown>;
}

/** Runs a program to its end on a synchronous driver: no promise is made anywhere. */
export function runSync<T>(program: SqlProgram<T>, driver: SyncSqlDriver): T {
  let step = program.next();
  while (!step.done) {
    let result: unknown;
    try {
      const op = step.value;
      if (op.op === 'await') throw new Error('[svcbase] [storage] a synchronous driver cannot wait for a promise');
      result = driver.perform(op);
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}

/** Runs a program to its end on an asynchronous driver, one operation at a time. */
export async function runAsync<T>(program: SqlProgram<T>, driver: AsyncSqlDriver): Promise<T> {
  let step = program.next();
  while (!step.done) {
    let result: unknown;
    try {
      const op = step.value;
      result = await (op.op === 'await' ? op.promise : driver.perform(op));
    } catch (error) {
      step = program.throw(error);
      continue;
    }
    step = program.next(result);
  }
  return step.value;
}

/** Functions returning programs (a store's operations). */
type Programs = Record<string, (...args: never[]) => SqlProgram<unknown>>;

/** The operations of `P` answering at once. */
export type SyncOf<P extends Programs> = { readonly [K in keyof P]: (...args: Parameters<P[K]>) => ReturnType<P[K]> extends SqlProgram<infer T> ? T : never };
/** The operations of `P` answering with a promise. */
export type AsyncOf<P extends Programs> = { readonly [K in keyof P]: (...args: Parameters<P[K]>) => Promise<ReturnType<P[K]> extends SqlProgram<infer T> ? T : never> };

/** Binds a set of programs to a synchronous driver. */
export function bindSync<P extends Programs>(programs: P, driver: SyncSqlDriver): SyncOf<P> {
  const bound: Record<string, unknown> = {};
  for (const [name, program] of Object.entries(programs)) bound[name] = (...args: never[]) => runSync(program(...args), driver);
  return bound as SyncOf<P>;
}

/** Binds a set of programs to an asynchronous driver. */
export function bindAsync<P extends Programs>(programs: P, driver: AsyncSqlDriver): AsyncOf<P> {
  const bound: Record<string, unknown> = {};
  for (const [name, program] of Object.entries(programs)) bound[name] = (...args: never[]) => runAsync(program(...args), driver);
  return bound as AsyncOf<P>;
}
