import { configError } from '../../core/errors.js';
import type { DateValue, StoredRecord } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import { applyOps, needsReadModifyWrite } from '../../operators/apply.js';
import { withoutMissingUnsets } from '../../operators/column-types.js';
import type { TableSchema } from '../../query/plan.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { postgresDialect } from '../../query/sql/postgres-dialect.js';
import { type Assignment, compileAddRelation, compileRemoveRelation, compileSelectById, compileUpdate } from '../../query/sql/write-compiler.js';
import type { FieldOp, TableRef } from '../port.js';
import type { PgQueryable } from './pg-client.js';
import { decodePgRow, encodePgColumn } from './pg-row-codec.js';
import { runQuery } from './pg-schema-store.js';

const D = postgresDialect;

type RelationOp = Extract<FieldOp, { kind: 'add_relation' | 'remove_relation' }>;
type ValueOp = Exclude<FieldOp, RelationOp>;

/** How an update runs: as one statement, or as several that need a transaction. */
export interface PgUpdatePlan {
  /** True when the update is one `UPDATE ... RETURNING` (no read, no Relation rows). */
  readonly single: boolean;
  run(client: PgQueryable): Promise<StoredRecord | null>;
}

/**
 * Plans field operations on one row. Top-level set/unset/increment are one `UPDATE ... SET n =
 * COALESCE(n, 0) + $1 ... RETURNING *`, atomic on its own. Array operations and dot-key paths read
 * the row with `SELECT ... FOR UPDATE`, apply the shared `applyOps` and write the changed columns
 * back; Relation operations add or remove join rows. Those must run inside a transaction (the
 * caller opens it when `single` is false), so concurrent updates of the row serialise on its lock.
 */
export function planUpdate(ref: TableRef, schema: TableSchema, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): PgUpdatePlan {
  const ops = withoutMissingUnsets(schema, allOps);
  for (const op of ops) {
    if (!Object.hasOwn(schema.columns, op.column)) throw configError('postgres', `column '${op.column}' is not in the schema of ${ref.className}: call ensureColumns first`);
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
  return {
    single: direct && relationOps.length === 0,
    async run(client) {
      const assignments = direct ? directAssignments(schema, valueOps) : await readModifyWrite(client, table, schema, valueOps, objectId);
      if (!assignments) return null;
      const rows = await runQuery(client, compileUpdate(D, table, assignments, objectId, ms));
      const row = rows[0];
      if (!row) return null;
      for (const op of relationOps) {
        const join = relationTableName(ref.namespace, ref.className, op.column);
        for (const id of op.ids) {
          await runQuery(client, op.kind === 'add_relation' ? compileAddRelation(D, join, objectId, id) : compileRemoveRelation(D, join, objectId, id));
        }
      }
      return decodePgRow(schema, row);
    },
  };
}

function directAssignments(schema: TableSchema, ops: readonly ValueOp[]): Assignment[] {
  const out: Assignment[] = [];
  for (const op of ops) {
    if (op.kind === 'increment') out.push({ kind: 'increment', column: op.column, amount: op.amount });
    else for (const [column, value] of encodePgColumn(op.column, schema.columns[op.column]!, op.kind === 'set' ? op.value : null)) out.push({ kind: 'set', column, value });
  }
  return out;
}

async function readModifyWrite(client: PgQueryable, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string): Promise<Assignment[] | null> {
  const rows = await runQuery(client, compileSelectById(D, table, objectId, undefined, true));
  const row = rows[0];
  if (!row) return null;
  const next = applyOps(decodePgRow(schema, row), ops);
  const out: Assignment[] = [];
  for (const name of new Set(ops.map((op) => op.column))) {
    for (const [column, value] of encodePgColumn(name, schema.columns[name]!, next[name])) out.push({ kind: 'set', column, value });
  }
  return out;
}
