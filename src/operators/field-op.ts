import type { Value } from '../core/values.js';

/**
 * One field operation of an update, already validated against the schema. `path` is empty for the
 * column itself, or a path into an Object/Array column for dot-key updates (`address.city`,
 * `items.0.name`).
 */
export type FieldOp =
  | { readonly kind: 'set'; readonly column: string; readonly path: readonly string[]; readonly value: Value }
  | { readonly kind: 'unset'; readonly column: string; readonly path: readonly string[] }
  /** Missing field starts at 0; a non-number field is a type error (111). */
  | { readonly kind: 'increment'; readonly column: string; readonly path: readonly string[]; readonly amount: number }
  | { readonly kind: 'add'; readonly column: string; readonly path: readonly string[]; readonly objects: readonly Value[] }
  | { readonly kind: 'add_unique'; readonly column: string; readonly path: readonly string[]; readonly objects: readonly Value[] }
  | { readonly kind: 'remove'; readonly column: string; readonly path: readonly string[]; readonly objects: readonly Value[] }
  | { readonly kind: 'add_relation'; readonly column: string; readonly targetClass: string; readonly ids: readonly string[] }
  | { readonly kind: 'remove_relation'; readonly column: string; readonly targetClass: string; readonly ids: readonly string[] };

export type FieldOpKind = FieldOp['kind'];

/**
 * Per-application limits `ensureColumns` enforces when it would create a table or add columns
 * (from the application's `settings.schema`). System tables (names starting with `_`) are not
 * counted in `maxTables` and never refused by it.
 */
export interface SchemaLimits {
  /** Most tables of a namespace (11082 beyond). */
  readonly maxTables: number;
  /** Most columns of a table, not counting objectId/createdAt/updatedAt (11083 beyond). */
  readonly maxColumns: number;
}
