import { configError } from '../../core/errors.js';
import type { StoredRecord, Value } from '../../core/values.js';
import { applyOps, needsReadModifyWrite } from '../../operators/apply.js';
import { withoutMissingUnsets } from '../../operators/column-types.js';
import type { ColumnSchema, TableSchema } from '../../query/plan.js';
import type { Assignment } from '../../query/sql/write-compiler.js';
import type { FieldOp, TableRef } from '../port.js';

export type RelationOp = Extract<FieldOp, { kind: 'add_relation' | 'remove_relation' }>;
export type ValueOp = Exclude<FieldOp, RelationOp>;

/** An engine's encoding of one column's value as its physical columns and parameters. */
export type ColumnEncoder = (name: string, column: ColumnSchema, value: Value | undefined) => ReadonlyArray<readonly [string, unknown]>;

/** How an update runs on a SQL engine, decided from its operations alone. */
export interface UpdateShape {
  readonly valueOps: readonly ValueOp[];
  readonly relationOps: readonly RelationOp[];
  /**
   * Top-level set/unset/increment, each column once: one `UPDATE ... RETURNING`. Otherwise the row
   * is read (locked), `applyOps` runs and the changed columns are written back.
   */
  readonly direct: boolean;
}

/** Splits an update's operations (unsets of unknown columns dropped; other unknown columns refused). */
export function updateShape(engine: string, ref: TableRef, schema: TableSchema, allOps: readonly FieldOp[]): UpdateShape {
  const ops = withoutMissingUnsets(schema, allOps);
  const valueOps: ValueOp[] = [];
  const relationOps: RelationOp[] = [];
  const columns = new Set<string>();
  for (const op of ops) {
    if (!Object.hasOwn(schema.columns, op.column)) {
      throw configError(engine, `column '${op.column}' is not in the schema of ${ref.className}: call ensureColumns first`);
    }
    if (op.kind === 'add_relation' || op.kind === 'remove_relation') relationOps.push(op);
    else {
      valueOps.push(op);
      columns.add(op.column);
    }
  }
  return { valueOps, relationOps, direct: !needsReadModifyWrite(valueOps) && columns.size === valueOps.length };
}

/** Top-level set/unset/increment as assignments of one UPDATE. */
export function directAssignments(schema: TableSchema, ops: readonly ValueOp[], encode: ColumnEncoder): Assignment[] {
  const out: Assignment[] = [];
  for (const op of ops) {
    if (op.kind === 'increment') out.push({ kind: 'increment', column: op.column, amount: op.amount });
    else for (const [column, value] of encode(op.column, schema.columns[op.column]!, op.kind === 'set' ? op.value : null)) out.push({ kind: 'set', column, value });
  }
  return out;
}

/** The operations applied to the row as read (the shared `applyOps`), as assignments of the columns they touch. */
export function appliedAssignments(schema: TableSchema, ops: readonly ValueOp[], current: StoredRecord, encode: ColumnEncoder): Assignment[] {
  const next = applyOps(current, ops);
  const out: Assignment[] = [];
  for (const name of new Set(ops.map((op) => op.column))) {
    for (const [column, value] of encode(name, schema.columns[name]!, next[name])) out.push({ kind: 'set', column, value });
  }
  return out;
}
