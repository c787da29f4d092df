import { configError } from '../../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import type { AggregatePlan, FindPlan, Projection, TableSchema, WhereNode } from '../../query/plan.js';
import type { CompiledAggregate } from '../../query/sql/aggregate-compiler.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { compileClearRelation, compileDeleteById, compileInsert, compileSelectById } from '../../query/sql/write-compiler.js';
import { projectRecord } from '../kit/projection.js';
import type { FieldOp, TableRef, UpdateImages } from '../port.js';
import { type UpdateEngine, updateRow } from './record-update.js';
import { type SqlProgram, arrays, rows, transaction, write } from './sql-program.js';

/** A find to try first, and how to tell whether its rows are the whole answer (SQLite's top-first finds, D147). */
export interface FirstTry {
  readonly query: CompiledQuery;
  /** Whether these array rows are the plan's answer; false runs the plan's own statement. */
  answered(rows: readonly unknown[][]): boolean;
}

/**
 * What one SQL engine brings to the record core: its dialect and row codec (UpdateEngine), how it
 * finds the schema a statement runs with, and the hooks where engines decide differently. Hooks are
 * SQL programs, so a synchronous engine's hooks stay synchronous.
 */
export interface SqlRecordEngine extends UpdateEngine {
  /** The schema a read runs with; null when the table does not exist. */
  schemaForRead(ref: TableRef): SqlProgram<TableSchema | null>;
  /** The schema a write naming `columns` runs with (PostgreSQL reloads one that does not know them all). */
  schemaForWrite(ref: TableRef, columns: readonly string[]): SqlProgram<TableSchema | null>;
  /**
   * Runs `work` with `schema`; an engine whose statements may meet a table or column another process
   * changed repairs the schema and runs `work` once more (PostgreSQL after 42P01/42703), or answers
   * `gone` when the table is gone. A write names its `columns`: they are added back if they were dropped.
   */
  repairing<T>(ref: TableRef, schema: TableSchema, gone: T, work: (schema: TableSchema) => SqlProgram<T>, columns?: readonly string[]): SqlProgram<T>;
  /** A find to try before the plan's own statement, or null. */
  firstTry(ref: TableRef, schema: TableSchema, plan: FindPlan): SqlProgram<FirstTry | null>;
  /** The statement of a find, selecting `codec.arrayLayout(schema).names` (compileFind). */
  findQuery(ref: TableRef, schema: TableSchema, plan: FindPlan): SqlProgram<CompiledQuery>;
  /** The statement of a count: one row whose `n` is the count. */
  countQuery(ref: TableRef, schema: TableSchema, where: WhereNode): SqlProgram<CompiledQuery>;
  /** The statement of an aggregate and the decoder of its rows. */
  aggregateQuery(ref: TableRef, schema: TableSchema, plan: AggregatePlan): SqlProgram<CompiledAggregate>;
}

const OBJECT_ID = ['objectId'] as const;

/** The columns field operations name (an unset of an unknown column is a no-op and names none). */
function opColumns(ops: readonly FieldOp[]): string[] {
  return ops.filter((op) => op.kind !== 'unset').map((op) => op.column);
}

/**
 * The record operations of the storage port over one SQL engine, written once as SQL programs
 * (sql-program.ts): the SQLite adapter runs them synchronously, the PostgreSQL adapter
 * asynchronously. Every statement comes from the compilers of src/query/sql; rows are read as arrays
 * of `codec.arrayLayout(schema).names` and decoded by the shared row codec. SQL texts that depend on
 * the schema alone are compiled once per (frozen) schema object.
 */
export function sqlRecordCore(engine: SqlRecordEngine) {
  const { dialect, codec } = engine;
  /** `SELECT <physical columns> ... WHERE "objectId" = ?` per schema. */
  const getSql = new WeakMap<TableSchema, string>();
  /** INSERT texts per schema, by the comma-joined physical column names. */
  const insertSql = new WeakMap<TableSchema, Map<string, string>>();

  function* insert(ref: TableRef, record: StoredRecord): SqlProgram<void> {
    const columns = Object.keys(record);
    const schema = yield* engine.schemaForWrite(ref, columns);
    if (!schema) throw configError(dialect.name, `table ${ref.className} does not exist: call ensureColumns first`);
    yield* engine.repairing(
      ref,
      schema,
      undefined,
      function* (current) {
        const encoded = codec.encodeRecord(current, record);
        const names = new Array<string>(encoded.length);
        const params = new Array<unknown>(encoded.length);
        for (let i = 0; i < encoded.length; i++) [names[i], params[i]] = encoded[i]!;
        // Records of a table mostly share one column list.
        let texts = insertSql.get(current);
        if (!texts) insertSql.set(current, (texts = new Map()));
        const key = names.join(',');
        let sql = texts.get(key);
        if (sql === undefined) {
          sql = engine.keyed(compileInsert(dialect, physicalTableName(ref.namespace, ref.className), names, params), [current]).sql;
          if (texts.size >= 64) texts.clear();
          texts.set(key, sql);
        }
        yield* write({ sql, parameters: params });
      },
      columns,
    );
  }

  function* get(ref: TableRef, objectId: string, projection?: Projection): SqlProgram<StoredRecord | null> {
    const schema = yield* engine.schemaForRead(ref);
    if (!schema) return null;
    return yield* engine.repairing(ref, schema, null, function* (current) {
      const layout = codec.arrayLayout(current);
      let sql = getSql.get(current);
      if (sql === undefined) getSql.set(current, (sql = compileSelectById(dialect, physicalTableName(ref.namespace, ref.className), objectId, layout.names).sql));
      const row = (yield* arrays({ sql, parameters: [objectId] }))[0];
      return row ? projectRecord(codec.decodeValues(current, row, layout), projection) : null;
    });
  }

  function* update(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): SqlProgram<StoredRecord | null> {
    const columns = opColumns(ops);
    const schema = yield* engine.schemaForWrite(ref, columns);
    if (!schema) return null;
    return yield* engine.repairing(
      ref,
      schema,
      null,
      function* (current) {
        const row = yield* updateRow(engine, ref, current, objectId, ops, updatedAt, codec.arrayLayout(current).names);
        return row ? codec.decodeRow(current, row) : null;
      },
      columns,
    );
  }

  /**
   * `update` answering only whether the record exists: the REST update replies `updatedAt` alone, so
   * its statement returns `"objectId"` and no row is decoded.
   */
  function* updateWithoutReturning(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): SqlProgram<boolean> {
    const columns = opColumns(ops);
    const schema = yield* engine.schemaForWrite(ref, columns);
    if (!schema) return false;
    return yield* engine.repairing(ref, schema, false, function* (current) {
      return (yield* updateRow(engine, ref, current, objectId, ops, updatedAt, OBJECT_ID)) !== null;
    }, columns);
  }

  /** The row read (locked where the dialect locks rows), then updated, in one transaction. */
  function* updateReturningBefore(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): SqlProgram<UpdateImages | null> {
    const columns = opColumns(ops);
    const schema = yield* engine.schemaForWrite(ref, columns);
    if (!schema) return null;
    return yield* engine.repairing(ref, schema, null, function* (current) {
      const names = codec.arrayLayout(current).names;
      const read = compileSelectById(dialect, physicalTableName(ref.namespace, ref.className), objectId, names, true);
      return yield* transaction(
        (function* (): SqlProgram<UpdateImages | null> {
          const row = (yield* rows(read))[0];
          if (!row) return null;
          const before = codec.decodeRow(current, row);
          const after = yield* updateRow(engine, ref, current, objectId, ops, updatedAt, names);
          return after ? { before, after: codec.decodeRow(current, after) } : null;
        })(),
      );
    }, columns);
  }

  function* remove(ref: TableRef, objectId: string): SqlProgram<boolean> {
    const schema = yield* engine.schemaForRead(ref);
    if (!schema) return false;
    return yield* engine.repairing(ref, schema, false, function* (current) {
      const relations = Object.entries(current.columns).filter(([, c]) => c.type === 'Relation').map(([name]) => name);
      function* deleteRows(): SqlProgram<boolean> {
        if ((yield* write(compileDeleteById(dialect, physicalTableName(ref.namespace, ref.className), objectId))) === 0) return false;
        for (const column of relations) yield* write(compileClearRelation(dialect, relationTableName(ref.namespace, ref.className, column), objectId));
        return true;
      }
      return relations.length === 0 ? yield* deleteRows() : yield* transaction(deleteRows());
    });
  }

  function* find(ref: TableRef, plan: FindPlan): SqlProgram<StoredRecord[]> {
    const schema = yield* engine.schemaForRead(ref);
    if (!schema) return [];
    return yield* engine.repairing(ref, schema, [], function* (current) {
      let found: unknown[][] | null = null;
      const first = yield* engine.firstTry(ref, current, plan);
      if (first) {
        found = yield* arrays(first.query);
        if (!first.answered(found)) found = null;
      }
      found ??= yield* arrays(yield* engine.findQuery(ref, current, plan));
      const layout = codec.arrayLayout(current);
      const out: StoredRecord[] = new Array(found.length);
      for (let i = 0; i < found.length; i++) out[i] = projectRecord(codec.decodeValues(current, found[i]!, layout), plan.projection);
      return out;
    });
  }

  function* count(ref: TableRef, where: WhereNode): SqlProgram<number> {
    const schema = yield* engine.schemaForRead(ref);
    if (!schema) return 0;
    return yield* engine.repairing(ref, schema, 0, function* (current) {
      const found = yield* rows(yield* engine.countQuery(ref, current, where));
      return Number(found[0]?.n ?? 0);
    });
  }

  function* aggregate(ref: TableRef, plan: AggregatePlan): SqlProgram<Array<Record<string, Value>>> {
    const schema = yield* engine.schemaForRead(ref);
    if (!schema) return [];
    return yield* engine.repairing(ref, schema, [], function* (current) {
      const { query, decode } = yield* engine.aggregateQuery(ref, current, plan);
      return (yield* rows(query)).map((row) => decode(row));
    });
  }

  return { insert, get, update, updateWithoutReturning, updateReturningBefore, delete: remove, find, count, aggregate };
}

/** The record operations of one engine, as programs. */
export type SqlRecordPrograms = ReturnType<typeof sqlRecordCore>;
