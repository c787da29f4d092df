import { configError } from '../../core/errors.js';
import type { DateValue, StoredRecord } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import { applyOps, needsReadModifyWrite } from '../../operators/apply.js';
import { withoutMissingUnsets } from '../../operators/column-types.js';
import type { TableSchema } from '../../query/plan.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import type { FieldOp, TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { quoteIdent } from './identifiers.js';
import { type ColumnParam, decodeRow, encodeColumn } from './row-codec.js';
import type { StatementCache } from './statement-cache.js';

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
 * statement. Array operations and dot-key paths read the row, apply the shared `applyOps`, and write
 * the changed columns back inside one IMMEDIATE transaction (a savepoint inside an open transaction).
 * Relation operations join the same transaction.
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
  const table = quoteIdent(physicalTableName(ref.namespace, ref.className));

  const write = (): StoredRecord | null => {
    const row = direct ? directUpdate(deps, table, schema, valueOps, objectId, updatedAt) : readModifyWrite(deps, table, schema, valueOps, objectId, updatedAt);
    if (!row) return null;
    for (const op of relationOps) applyRelationOp(deps, ref, objectId, op);
    return decodeRow(schema, row);
  };
  return direct && relationOps.length === 0 ? write() : deps.db.transaction(write).immediate();
}

type Row = Record<string, unknown>;

function directUpdate(deps: UpdateDeps, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string, updatedAt: DateValue): Row | null {
  const assignments: string[] = [];
  const params: unknown[] = [];
  for (const op of ops) {
    const column = schema.columns[op.column]!;
    if (op.kind === 'increment') {
      const name = quoteIdent(op.column);
      assignments.push(`${name} = COALESCE(${name}, 0) + ?`);
      params.push(op.amount);
    } else {
      const value = op.kind === 'set' ? op.value : null;
      for (const [name, param] of encodeColumn(op.column, column, value)) {
        assignments.push(`${quoteIdent(name)} = ?`);
        params.push(param);
      }
    }
  }
  return runUpdate(deps, table, assignments, params, objectId, updatedAt);
}

function readModifyWrite(deps: UpdateDeps, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string, updatedAt: DateValue): Row | null {
  const row = deps.statements.get(`SELECT * FROM ${table} WHERE "objectId" = ?`).get(objectId) as Row | undefined;
  if (!row) return null;
  const next = applyOps(decodeRow(schema, row), ops);
  const assignments: string[] = [];
  const params: unknown[] = [];
  for (const name of new Set(ops.map((op) => op.column))) {
    const encoded: ColumnParam[] = encodeColumn(name, schema.columns[name]!, next[name]);
    for (const [physical, param] of encoded) {
      assignments.push(`${quoteIdent(physical)} = ?`);
      params.push(param);
    }
  }
  return runUpdate(deps, table, assignments, params, objectId, updatedAt);
}

function runUpdate(deps: UpdateDeps, table: string, assignments: string[], params: unknown[], objectId: string, updatedAt: DateValue): Row | null {
  assignments.push('"updatedAt" = ?');
  const sql = `UPDATE ${table} SET ${assignments.join(', ')} WHERE "objectId" = ? RETURNING *`;
  return (deps.statements.get(sql).get(...params, dateMs(updatedAt), objectId) as Row | undefined) ?? null;
}

function applyRelationOp(deps: UpdateDeps, ref: TableRef, objectId: string, op: RelationOp): void {
  const join = quoteIdent(relationTableName(ref.namespace, ref.className, op.column));
  const sql =
    op.kind === 'add_relation'
      ? `INSERT OR IGNORE INTO ${join} (owningId, relatedId) VALUES (?, ?)`
      : `DELETE FROM ${join} WHERE owningId = ? AND relatedId = ?`;
  const statement = deps.statements.get(sql);
  for (const id of op.ids) statement.run(objectId, id);
}
