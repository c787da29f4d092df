import { configError } from '../../core/errors.js';
import type { DateValue, StoredRecord } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import { applyOps, needsReadModifyWrite } from '../../operators/apply.js';
import { withoutMissingUnsets } from '../../operators/column-types.js';
import type { TableSchema } from '../../query/plan.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { sqliteDialect } from '../../query/sql/sqlite-dialect.js';
import { type Assignment, compileAddRelation, compileRemoveRelation, compileSelectById, compileUpdate } from '../../query/sql/write-compiler.js';
import type { FieldOp, TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { decodeRow, encodeColumn } from './row-codec.js';
import type { StatementCache } from './statement-cache.js';

const DIALECT = sqliteDialect;

type RelationOp = Extract<FieldOp, { kind: 'add_relation' | 'remove_relation' }>;
type ValueOp = Exclude<FieldOp, RelationOp>;

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
  const ops = withoutMissingUnsets(schema, allOps);
  for (const op of ops) {
    if (!Object.hasOwn(schema.columns, op.column)) {
      throw configError('sqlite', `column '${op.column}' is not in the schema of ${ref.className}: call ensureColumns first`);
    }
  }
  const valueOps: ValueOp[] = [];
  const relationOps: RelationOp[] = [];
  const columns = new Set<string>();
  for (const op of ops) {
    if (op.kind === 'add_relation' || op.kind === 'remove_relation') relationOps.push(op);
    else {
      valueOps.push(op);
      columns.add(op.column);
    }
  }
  const direct = !needsReadModifyWrite(valueOps) && columns.size === valueOps.length;
  const table = physicalTableName(ref.namespace, ref.className);
  const ms = dateMs(updatedAt);

  const write = (): StoredRecord | null => {
    const assignments = direct ? directAssignments(schema, valueOps) : readModifyWrite(deps, table, schema, valueOps, objectId);
    if (!assignments) return null;
    const update = compileUpdate(DIALECT, table, assignments, objectId, ms);
    const row = deps.statements.get(update.sql).get(...update.parameters) as Row | undefined;
    if (!row) return null;
    for (const op of relationOps) applyRelationOp(deps, ref, objectId, op);
    return decodeRow(schema, row);
  };
  return direct && relationOps.length === 0 ? write() : deps.db.transaction(write).immediate();
}

type Row = Record<string, unknown>;

/** Top-level set/unset/increment as assignments of one UPDATE. */
function directAssignments(schema: TableSchema, ops: readonly ValueOp[]): Assignment[] {
  const out: Assignment[] = [];
  for (const op of ops) {
    if (op.kind === 'increment') out.push({ kind: 'increment', column: op.column, amount: op.amount });
    else for (const [column, value] of encodeColumn(op.column, schema.columns[op.column]!, op.kind === 'set' ? op.value : null)) out.push({ kind: 'set', column, value });
  }
  return out;
}

/** Reads the row (locked where the dialect locks rows), applies the ops, and assigns the changed columns. */
function readModifyWrite(deps: UpdateDeps, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string): Assignment[] | null {
  const read = compileSelectById(DIALECT, table, objectId, undefined, true);
  const row = deps.statements.get(read.sql).get(...read.parameters) as Row | undefined;
  if (!row) return null;
  const next = applyOps(decodeRow(schema, row), ops);
  const out: Assignment[] = [];
  for (const name of new Set(ops.map((op) => op.column))) {
    for (const [column, value] of encodeColumn(name, schema.columns[name]!, next[name])) out.push({ kind: 'set', column, value });
  }
  return out;
}

function applyRelationOp(deps: UpdateDeps, ref: TableRef, objectId: string, op: RelationOp): void {
  const join = relationTableName(ref.namespace, ref.className, op.column);
  for (const id of op.ids) {
    const q = op.kind === 'add_relation' ? compileAddRelation(DIALECT, join, objectId, id) : compileRemoveRelation(DIALECT, join, objectId, id);
    deps.statements.get(q.sql).run(...q.parameters);
  }
}
