import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import type { FindPlan, Projection, TableSchema } from '../../query/plan.js';
import type { CompiledAggregate } from '../../query/sql/aggregate-compiler.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { compileClearRelation, compileDeleteById, compileInsert, compileSelectById } from '../../query/sql/write-compiler.js';
import { projectRecord } from '../kit/projection.js';
import type { FieldOp, TableRef, UpdateImages } from '../port.js';
import { type UpdateEngine, refuseOverflow, singleUpdate, updateRow } from './record-update.js';
import { type SqlProgram, type SqlRow, transaction } from './sql-program.js';

/** A find to try first, and how to tell whether its rows are the whole answer (SQLite's top-first finds, D147). */
export interface FirstTry {
  readonly query: CompiledQuery;
  /** Whether these array rows are the plan's answer; false runs the plan's own statement. */
  answered(rows: readonly unknown[][]): boolean;
}

/** What one SQL engine brings to the record core: its dialect, row codec and statement keying. */
export type SqlRecordEngine = UpdateEngine;

const OBJECT_ID = ['objectId'] as const;

/**
 * The record operations of the storage port over one SQL engine, written once as SQL programs
 * (sql-program.ts): the SQLite adapter runs them synchronously, the PostgreSQL adapter
 * asynchronously. The engine's adapter core resolves what differs before a program runs (the
 * schema, from its own cache; the find, count and aggregate statements, from its own plan choices)
 * and around it (PostgreSQL's repair after 42P01/42703); the programs own the record semantics: the
 * statements of each operation, their order and transactions, encoding and decoding. Rows are read
 * as arrays of `codec.arrayLayout(schema).names`; SQL texts that depend on the schema alone are
 * compiled once per (frozen) schema object. Programs yield operation objects directly (no helper
 * generator per statement): SQLite runs one generator per call.
 */
export function sqlRecordCore(engine: SqlRecordEngine) {
  const { dialect, codec } = engine;
  /** `SELECT <physical columns> ... WHERE "objectId" = ?` per schema. */
  const getSql = new WeakMap<TableSchema, string>();
  /** INSERT texts per schema, by the comma-joined physical column names. */
  const insertSql = new WeakMap<TableSchema, Map<string, string>>();

  function* insert(ref: TableRef, schema: TableSchema, record: StoredRecord): SqlProgram<void> {
    const encoded = codec.encodeRecord(schema, record);
    const names = new Array<string>(encoded.length);
    const params = new Array<unknown>(encoded.length);
    for (let i = 0; i < encoded.length; i++) [names[i], params[i]] = encoded[i]!;
    // Records of a table mostly share one column list.
    let texts = insertSql.get(schema);
    if (!texts) insertSql.set(schema, (texts = new Map()));
    const key = names.join(',');
    let sql = texts.get(key);
    if (sql === undefined) {
      sql = engine.keyed(compileInsert(dialect, physicalTableName(ref.namespace, ref.className), names, params), [schema]).sql;
      if (texts.size >= 64) texts.clear();
      texts.set(key, sql);
    }
    yield { op: 'write', query: { sql, parameters: params } };
  }

  function* get(ref: TableRef, schema: TableSchema, objectId: string, projection?: Projection): SqlProgram<StoredRecord | null> {
    const layout = codec.arrayLayout(schema);
    let sql = getSql.get(schema);
    if (sql === undefined) getSql.set(schema, (sql = compileSelectById(dialect, physicalTableName(ref.namespace, ref.className), objectId, layout.names).sql));
    const row = (yield { op: 'array', query: { sql, parameters: [objectId] } }) as unknown[] | undefined;
    return row ? projectRecord(codec.decodeValues(schema, row, layout), projection) : null;
  }

  function* update(ref: TableRef, schema: TableSchema, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): SqlProgram<StoredRecord | null> {
    const update = { ref, schema, objectId, ops, updatedAt, returning: codec.arrayLayout(schema).names };
    const single = singleUpdate(engine, update);
    const row = single ? ((yield { op: 'row', query: single }) as SqlRow | undefined) : yield* updateRow(engine, update);
    if (!row && single) yield* refuseOverflow(engine, update);
    return row ? codec.decodeRow(schema, row) : null;
  }

  /**
   * `update` answering only whether the record exists: the REST update replies `updatedAt` alone, so
   * its statement returns `"objectId"` and no row is decoded (an Increment is one `UPDATE ... SET n =
   * COALESCE(n, 0) + ? ... RETURNING "objectId"`).
   */
  function* updateWithoutReturning(ref: TableRef, schema: TableSchema, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): SqlProgram<boolean> {
    const update = { ref, schema, objectId, ops, updatedAt, returning: OBJECT_ID };
    const single = singleUpdate(engine, update);
    if (!single) return (yield* updateRow(engine, update)) !== null;
    if ((yield { op: 'row', query: single }) !== undefined) return true;
    yield* refuseOverflow(engine, update);
    return false;
  }

  /** The row read (locked where the dialect locks rows), then updated, in one transaction (a savepoint when nested). */
  function* updateReturningBefore(ref: TableRef, schema: TableSchema, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): SqlProgram<UpdateImages | null> {
    const names = codec.arrayLayout(schema).names;
    const read = compileSelectById(dialect, physicalTableName(ref.namespace, ref.className), objectId, names, true);
    function* both(): SqlProgram<UpdateImages | null> {
      const row = (yield { op: 'row', query: read }) as SqlRow | undefined;
      if (!row) return null;
      const before = codec.decodeRow(schema, row);
      const after = yield* updateRow(engine, { ref, schema, objectId, ops, updatedAt, returning: names });
      return after ? { before, after: codec.decodeRow(schema, after) } : null;
    }
    return yield* transaction(both());
  }

  /** Deletes a record and its Relation memberships (one transaction when there are any); true when it existed. */
  function* remove(ref: TableRef, schema: TableSchema, objectId: string): SqlProgram<boolean> {
    const relations = Object.entries(schema.columns).filter(([, c]) => c.type === 'Relation').map(([name]) => name);
    function* deleteRows(): SqlProgram<boolean> {
      const changed = (yield { op: 'write', query: compileDeleteById(dialect, physicalTableName(ref.namespace, ref.className), objectId) }) as number;
      if (changed === 0) return false;
      for (const column of relations) yield { op: 'write', query: compileClearRelation(dialect, relationTableName(ref.namespace, ref.className, column), objectId) };
      return true;
    }
    return relations.length === 0 ? yield* deleteRows() : yield* transaction(deleteRows());
  }

  /** The records of a find: `first` tried first when given, else (or when it falls short) the find's own statement (`query`, built only then). */
  function* find(schema: TableSchema, plan: FindPlan, query: () => CompiledQuery, first: FirstTry | null): SqlProgram<StoredRecord[]> {
    let found: unknown[][] | null = null;
    if (first) {
      found = (yield { op: 'arrays', query: first.query }) as unknown[][];
      if (!first.answered(found)) found = null;
    }
    found ??= (yield { op: 'arrays', query: query() }) as unknown[][];
    const layout = codec.arrayLayout(schema);
    const out: StoredRecord[] = new Array(found.length);
    for (let i = 0; i < found.length; i++) out[i] = projectRecord(codec.decodeValues(schema, found[i]!, layout), plan.projection);
    return out;
  }

  /** The `n` of a count statement's row. */
  function* count(query: CompiledQuery): SqlProgram<number> {
    const row = (yield { op: 'row', query }) as SqlRow | undefined;
    return Number(row?.n ?? 0);
  }

  function* aggregate({ query, decode }: CompiledAggregate): SqlProgram<Array<Record<string, Value>>> {
    const found = (yield { op: 'rows', query }) as SqlRow[];
    return found.map((row) => decode(row));
  }

  return { insert, get, update, updateWithoutReturning, updateReturningBefore, delete: remove, find, count, aggregate };
}

/** The record operations of one engine, as programs. */
export type SqlRecordPrograms = ReturnType<typeof sqlRecordCore>;
