import type { DateValue, StoredRecord } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { postgresDialect } from '../../query/sql/postgres-dialect.js';
import { type Assignment, compileAddRelation, compileRemoveRelation, compileSelectById, compileUpdate } from '../../query/sql/write-compiler.js';
import type { FieldOp, TableRef } from '../port.js';
import { type RelationOp, type ValueOp, appliedAssignments, directAssignments, updateShape } from '../sql/update-plan.js';
import type { PgQueryable } from './pg-client.js';
import { pgCodec } from './pg-codec.js';
import { runQuery } from './pg-sql-driver.js';
import { keyedToSchemas } from './statement-key.js';

const D = postgresDialect;

/** How an update runs: as one statement, or as several that need a transaction. */
export interface PgUpdatePlan {
  /** True when the update is one `UPDATE ... RETURNING` (no read, no Relation rows). */
  readonly single: boolean;
  run(client: PgQueryable): Promise<StoredRecord | null>;
  /** The same update returning only whether the row exists (`RETURNING "objectId"`: no row decoded). */
  runWithoutRecord(client: PgQueryable): Promise<boolean>;
}

/**
 * Plans field operations on one row. Top-level set/unset/increment are one `UPDATE ... SET n =
 * COALESCE(n, 0) + $1 ... RETURNING *`, atomic on its own. Array operations and dot-key paths read
 * the row with `SELECT ... FOR UPDATE`, apply the shared `applyOps` and write the changed columns
 * back; Relation operations add or remove join rows. Those must run inside a transaction (the
 * caller opens it when `single` is false), so concurrent updates of the row serialise on its lock.
 */
export function planUpdate(ref: TableRef, schema: TableSchema, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): PgUpdatePlan {
  const { valueOps, relationOps, direct } = updateShape('postgres', ref, schema, allOps);
  const table = physicalTableName(ref.namespace, ref.className);
  const ms = dateMs(updatedAt);
  /** The updated row's `returning` columns, or null when it does not exist; Relation rows after it. */
  const execute = async (client: PgQueryable, returning: readonly string[]): Promise<Record<string, unknown> | null> => {
    const assignments = direct ? directAssignments(schema, valueOps, pgCodec.encodeColumn) : await readModifyWrite(client, table, schema, valueOps, objectId);
    if (!assignments) return null;
    const rows = await runQuery(client, keyedToSchemas(compileUpdate(D, table, assignments, objectId, ms, returning), [schema]));
    const row = rows[0];
    if (!row) return null;
    for (const op of relationOps) {
      const join = relationTableName(ref.namespace, ref.className, op.column);
      for (const id of op.ids) {
        await runQuery(client, op.kind === 'add_relation' ? compileAddRelation(D, join, objectId, id) : compileRemoveRelation(D, join, objectId, id));
      }
    }
    return row;
  };
  return {
    single: direct && relationOps.length === 0,
    async run(client) {
      const row = await execute(client, pgCodec.arrayLayout(schema).names);
      return row ? pgCodec.decodeRow(schema, row) : null;
    },
    async runWithoutRecord(client) {
      return (await execute(client, OBJECT_ID)) !== null;
    },
  };
}

const OBJECT_ID = ['objectId'] as const;

async function readModifyWrite(client: PgQueryable, table: string, schema: TableSchema, ops: readonly ValueOp[], objectId: string): Promise<Assignment[] | null> {
  const rows = await runQuery(client, compileSelectById(D, table, objectId, pgCodec.arrayLayout(schema).names, true));
  const row = rows[0];
  if (!row) return null;
  return appliedAssignments(schema, ops, pgCodec.decodeRow(schema, row), pgCodec.encodeColumn);
}
