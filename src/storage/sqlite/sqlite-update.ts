import type { DateValue, StoredRecord } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { sqliteAdapterDialect } from '../../query/sql/sqlite-dialect.js';
import { type Assignment, compileAddRelation, compileRemoveRelation, compileSelectById, compileUpdate } from '../../query/sql/write-compiler.js';
import type { FieldOp, TableRef } from '../port.js';
import { type RelationOp, type ValueOp, appliedAssignments, directAssignments, updateShape } from '../sql/update-plan.js';
import type { SqliteDatabase } from './database-shape.js';
import { decodeRow, encodeColumn } from './row-codec.js';
import type { StatementCache } from './statement-cache.js';

const DIALECT = sqliteAdapterDialect;


export interface UpdateDeps {
  readonly db: SqliteDatabase;
  readonly statements: StatementCache;
}

/**
 * Applies field operations to one row atomically and returns the row after the update (null when it
 * does not exist).
 *
 * Top-level set/unset/increment compile to one `UPDATE ... SET n = COALESCE(n, 0) + ? ... RETURNING *`
 * statement (src/query/sql/write-compiler.ts). Array operations and dot-key paths read the row, apply
 * the shared `applyOps`, and write the changed columns back inside one IMMEDIATE transaction (a
 * savepoint inside an open transaction). Relation operations join the same transaction. This module
 * chooses the statements; the SQLite dialect compiles them.
 */
export function updateRow(deps: UpdateDeps, ref: TableRef, schema: TableSchema, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): StoredRecord | null {
  const row = applyUpdate(deps, ref, schema, objectId, allOps, updatedAt, undefined);
  return row ? decodeRow(schema, row) : null;
}

const OBJECT_ID_ONLY = ['objectId'];

/** `updateRow` without reading the row back (`RETURNING "objectId"`, nothing decoded): true when the row exists. */
export function updateRowWithoutReturning(deps: UpdateDeps, ref: TableRef, schema: TableSchema, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): boolean {
  return applyUpdate(deps, ref, schema, objectId, allOps, updatedAt, OBJECT_ID_ONLY) !== null;
}

/** The update; the row after it as `returning` names its columns (every column when omitted), or null when missing. */
function applyUpdate(
  deps: UpdateDeps,
  ref: TableRef,
  schema: TableSchema,
  objectId: string,
  allOps: readonly FieldOp[],
  updatedAt: DateValue,
  returning: readonly string[] | undefined,
): Row | null {
  const { valueOps, relationOps, direct } = updateShape('sqlite', ref, schema, allOps);
  const table = physicalTableName(ref.namespace, ref.className);
  const ms = dateMs(updatedAt);

  const write = (): Row | null => {
    const assignments = direct ? directAssignments(schema, valueOps, encodeColumn) : readModifyWrite(deps, table, schema, valueOps, objectId);
    if (!assignments) return null;
    const update = compileUpdate(DIALECT, table, assignments, objectId, ms, returning);
    const row = deps.statements.get(update.sql).get(...update.parameters) as Row | undefined;
    if (!row) return null;
    for (const op of relationOps) applyRelationOp(deps, ref, objectId, op);
    return row;
  };
  return direct && relationOps.length === 0 ? write() : deps.db.transaction(write).immediate();
}

type Row = Record<string, unknown>;

/** Reads the row (locked where the dialect locks rows), applies the ops, and assigns the changed columns. */
function readModifyWrite(deps: UpdateDeps, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string): Assignment[] | null {
  const read = compileSelectById(DIALECT, table, objectId, undefined, true);
  const row = deps.statements.get(read.sql).get(...read.parameters) as Row | undefined;
  if (!row) return null;
  return appliedAssignments(schema, ops, decodeRow(schema, row), encodeColumn);
}

function applyRelationOp(deps: UpdateDeps, ref: TableRef, objectId: string, op: RelationOp): void {
  const join = relationTableName(ref.namespace, ref.className, op.column);
  for (const id of op.ids) {
    const q = op.kind === 'add_relation' ? compileAddRelation(DIALECT, join, objectId, id) : compileRemoveRelation(DIALECT, join, objectId, id);
    deps.statements.get(q.sql).run(...q.parameters);
  }
}
