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

/**
 * Applies field operations to one row atomically: the row after the update as `returning` names its
 * columns (an object row), or null when it does not exist.
 *
 * Top-level set/unset/increment compile to one `UPDATE ... SET n = COALESCE(n, 0) + ? ... RETURNING`
 * statement, atomic on its own. Array operations and dot-key paths read the row (locked where the
 * dialect locks rows: PostgreSQL `FOR UPDATE`), apply the shared `applyOps`, and write the changed
 * columns back; Relation operations add or remove join rows. Those run in one transaction (a
 * savepoint, or the open transaction, when nested), so concurrent updates of the row serialise.
 */
export function* updateRow(
  engine: UpdateEngine,
  ref: TableRef,
  schema: TableSchema,
  objectId: string,
  allOps: readonly FieldOp[],
  updatedAt: DateValue,
  returning: readonly string[],
): SqlProgram<SqlRow | null> {
  const { dialect, codec } = engine;
  const { valueOps, relationOps, direct } = updateShape(dialect.name, ref, schema, allOps);
  const table = physicalTableName(ref.namespace, ref.className);
  const ms = dateMs(updatedAt);
  const update = (assignments: readonly Assignment[]) => engine.keyed(compileUpdate(dialect, table, assignments, objectId, ms, returning), [schema]);
  if (direct && relationOps.length === 0) return ((yield { op: 'row', query: update(directAssignments(schema, valueOps, codec.encodeColumn)) }) as SqlRow | undefined) ?? null;
  function* apply(): SqlProgram<SqlRow | null> {
    const assignments = direct ? directAssignments(schema, valueOps, codec.encodeColumn) : yield* readModifyWrite(engine, table, schema, valueOps, objectId);
    if (!assignments) return null;
    const row = (yield { op: 'row', query: update(assignments) }) as SqlRow | undefined;
    if (!row) return null;
    for (const op of relationOps) {
      const join = relationTableName(ref.namespace, ref.className, op.column);
      for (const id of op.ids) yield* write(op.kind === 'add_relation' ? compileAddRelation(dialect, join, objectId, id) : compileRemoveRelation(dialect, join, objectId, id));
    }
    return row;
  }
  return yield* transaction(apply());
}

/**
 * The one statement of an update that needs nothing else (top-level set/unset/increment, no Relation
 * operations), or null: the common case runs without a nested program.
 */
export function singleUpdate(
  engine: UpdateEngine,
  ref: TableRef,
  schema: TableSchema,
  objectId: string,
  allOps: readonly FieldOp[],
  updatedAt: DateValue,
  returning: readonly string[],
): CompiledQuery | null {
  const { valueOps, relationOps, direct } = updateShape(engine.dialect.name, ref, schema, allOps);
  if (!direct || relationOps.length > 0) return null;
  const assignments = directAssignments(schema, valueOps, engine.codec.encodeColumn);
  return engine.keyed(compileUpdate(engine.dialect, physicalTableName(ref.namespace, ref.className), assignments, objectId, dateMs(updatedAt), returning), [schema]);
}

/** Reads the row (locked where the dialect locks rows), applies the ops, and assigns the changed columns. */
function* readModifyWrite(engine: UpdateEngine, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string): SqlProgram<Assignment[] | null> {
  const row = (yield { op: 'row', query: compileSelectById(engine.dialect, table, objectId, engine.codec.arrayLayout(schema).names, true) }) as SqlRow | undefined;
  if (!row) return null;
  return appliedAssignments(schema, ops, engine.codec.decodeRow(schema, row), engine.codec.encodeColumn);
}
