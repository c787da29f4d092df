import { svcError } from '../../core/errors.js';
import type { DateValue } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';
import type { SqlDialect } from '../../query/sql/dialect.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { type Assignment, compileAddRelation, compileRemoveRelation, compileSelectById, compileUpdate } from '../../query/sql/write-compiler.js';
import type { FieldOp, TableRef } from '../port.js';
import type { RowCodec } from './row-codec.js';
import { type SqlProgram, type SqlRow, transaction, write } from './sql-program.js';
import { type ValueOp, appliedAssignments, directAssignments, updateShape } from './update-plan.js';

/** What an update needs of its engine. */
export interface UpdateEngine {
  readonly dialect: SqlDialect;
  readonly codec: RowCodec;
  /** The statement as the engine prepares it, keyed to the schemas it was compiled from (PostgreSQL, statement-key.ts). */
  keyed(query: CompiledQuery, schemas: Iterable<TableSchema | null>): CompiledQuery;
}

/** One row's update: its field operations, its new `updatedAt`, and the columns the row after it is read back with. */
export interface RowUpdate {
  readonly ref: TableRef;
  readonly schema: TableSchema;
  readonly objectId: string;
  readonly ops: readonly FieldOp[];
  readonly updatedAt: DateValue;
  readonly returning: readonly string[];
}

/**
 * The one statement of an update that needs nothing else (top-level set/unset/increment, no Relation
 * operations), or null. Top-level set/unset/increment compile to one `UPDATE ... SET n = COALESCE(n,
 * 0) + ? ... RETURNING` statement, atomic on its own; the common case runs without a nested program.
 */
export function singleUpdate(engine: UpdateEngine, { ref, schema, objectId, ops, updatedAt, returning }: RowUpdate): CompiledQuery | null {
  const { valueOps, relationOps, direct } = updateShape(engine.dialect.name, ref, schema, ops);
  if (!direct || relationOps.length > 0) return null;
  const assignments = directAssignments(schema, valueOps, engine.codec.encodeColumn);
  return engine.keyed(compileUpdate(engine.dialect, physicalTableName(ref.namespace, ref.className), assignments, objectId, dateMs(updatedAt), returning), [schema]);
}

/**
 * Applies field operations to one row atomically: the row after the update as `returning` names its
 * columns (an object row), or null when it does not exist. One statement where `singleUpdate` gives
 * one; otherwise array operations and dot-key paths read the row (locked where the dialect locks
 * rows: PostgreSQL `FOR UPDATE`), apply the shared `applyOps`, and write the changed columns back,
 * and Relation operations add or remove join rows, all in one transaction (a savepoint, or the open
 * transaction, when nested), so concurrent updates of the row serialise.
 */
export function* updateRow(engine: UpdateEngine, update: RowUpdate): SqlProgram<SqlRow | null> {
  const single = singleUpdate(engine, update);
  if (single) {
    const row = (yield { op: 'row', query: single }) as SqlRow | undefined;
    if (!row) yield* refuseOverflow(engine, update);
    return row ?? null;
  }
  const { ref, schema, objectId, ops, updatedAt, returning } = update;
  const { dialect, codec } = engine;
  const { valueOps, relationOps, direct } = updateShape(dialect.name, ref, schema, ops);
  const table = physicalTableName(ref.namespace, ref.className);
  function* apply(): SqlProgram<SqlRow | null> {
    const assignments = direct ? directAssignments(schema, valueOps, codec.encodeColumn) : yield* readModifyWrite(engine, table, schema, valueOps, objectId);
    if (!assignments) return null;
    const row = (yield { op: 'row', query: engine.keyed(compileUpdate(dialect, table, assignments, objectId, dateMs(updatedAt), returning), [schema]) }) as SqlRow | undefined;
    if (!row) {
      if (direct) yield* refuseOverflow(engine, update);
      return null;
    }
    for (const op of relationOps) {
      const join = relationTableName(ref.namespace, ref.className, op.column);
      for (const id of op.ids) yield* write(op.kind === 'add_relation' ? compileAddRelation(dialect, join, objectId, id) : compileRemoveRelation(dialect, join, objectId, id));
    }
    return row;
  }
  return yield* transaction(apply());
}

/**
 * After an UPDATE of top-level increments matched no row, on a dialect whose sums overflow to
 * Infinity (compileUpdate's guard leaves such a row unmatched): 111 when the row exists, so only a
 * missing record answers "not found". Increments inside paths are applied in JavaScript (apply.ts).
 */
export function* refuseOverflow(engine: UpdateEngine, { ref, objectId, ops }: RowUpdate): SqlProgram<void> {
  if (!engine.dialect.sumsOverflowToInfinity) return;
  const incremented = ops.find((op) => op.kind === 'increment' && op.path.length === 0);
  if (!incremented) return;
  const exists = yield { op: 'row', query: compileSelectById(engine.dialect, physicalTableName(ref.namespace, ref.className), objectId, ['objectId']) };
  if (exists) throw svcError('typeMismatch', incremented.column, 'Number', 'non-finite');
}

/** Reads the row (locked where the dialect locks rows), applies the ops, and assigns the changed columns. */
function* readModifyWrite(engine: UpdateEngine, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string): SqlProgram<Assignment[] | null> {
  const row = (yield { op: 'row', query: compileSelectById(engine.dialect, table, objectId, engine.codec.arrayLayout(schema).names, true) }) as SqlRow | undefined;
  if (!row) return null;
  return appliedAssignments(schema, ops, engine.codec.decodeRow(schema, row), engine.codec.encodeColumn);
}
