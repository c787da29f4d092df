import { svcError } from '../core/errors.js';
import type { Value } from '../core/values.js';
import { typeOfValue } from '../core/values.js';
import type { ColumnSchema, TableSchema } from '../query/plan.js';
import type { FieldOp, SchemaLimits } from './field-op.js';
import { assertNewColumns } from './schema-rules.js';
import { copyOf } from '../core/copy.js';

/**
 * Column typing shared by the write parser and every adapter's `ensureColumns`: a column's type is
 * fixed by its first write; Pointer and Relation columns are also fixed to one target class.
 */

/** `Number`, `Pointer<_User>`, `Relation<Post>`: how a column type reads in a 111 message. */
export function describeColumn(column: ColumnSchema): string {
  return column.targetClass ? `${column.type}<${column.targetClass}>` : column.type;
}

/** Whether two column descriptions are the same type (and the same target class for references). */
export function sameColumnType(a: ColumnSchema, b: ColumnSchema): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'Pointer' || a.type === 'Relation') return (a.targetClass ?? '') === (b.targetClass ?? '');
  return true;
}

/** The column a (non-null) value implies: its type, and the target class of a Pointer. */
export function impliedColumn(value: Value): ColumnSchema | null {
  const type = typeOfValue(value);
  if (type === null) return null;
  if (type === 'Pointer') return { type, targetClass: (value as { className: string }).className };
  return { type };
}

/** Throws 111 unless `wanted` matches the column's existing type (a missing column matches anything). */
export function assertColumnType(key: string, existing: ColumnSchema | undefined, wanted: ColumnSchema): void {
  if (existing && !sameColumnType(existing, wanted)) {
    throw svcError('typeMismatch', key, describeColumn(existing), describeColumn(wanted));
  }
}

/**
 * Merges wanted columns into a schema: the `ensureColumns` rule of every adapter. Returns the new
 * schema and the columns that were added (empty when nothing changed). Throws 111 on a conflict,
 * 11081 for a name differing only in case from another column and 11083 beyond `limits`, before
 * anything is changed.
 */
export function mergeColumns(
  className: string,
  existing: TableSchema | null,
  wanted: Readonly<Record<string, ColumnSchema>>,
  limits?: SchemaLimits,
): { schema: TableSchema; added: Array<[string, ColumnSchema]> } {
  const columns: Record<string, ColumnSchema> = copyOf(existing?.columns ?? {});
  const added: Array<[string, ColumnSchema]> = [];
  for (const [name, column] of Object.entries(wanted)) {
    const current = Object.hasOwn(columns, name) ? columns[name] : undefined;
    if (current) {
      assertColumnType(name, current, column);
      continue;
    }
    const copy: ColumnSchema = column.targetClass ? { type: column.type, targetClass: column.targetClass } : { type: column.type };
    columns[name] = copy;
    added.push([name, copy]);
  }
  assertNewColumns(className, existing, added, limits);
  if (existing && added.length === 0) return { schema: existing, added };
  return { schema: { className, columns, indexes: existing?.indexes ?? [] }, added };
}

/**
 * The operations an update really has to apply: an unset (`Delete`, `null`) of a column the table
 * does not have is dropped, since that column is already missing on every record. Every adapter's
 * `update` calls this first, so `obj.unset('never')` is a no-op on every write path.
 */
export function withoutMissingUnsets(schema: TableSchema, ops: readonly FieldOp[]): readonly FieldOp[] {
  let missing = false;
  for (const op of ops) if (op.kind === 'unset' && !Object.hasOwn(schema.columns, op.column)) missing = true;
  return missing ? ops.filter((op) => op.kind !== 'unset' || Object.hasOwn(schema.columns, op.column)) : ops;
}
