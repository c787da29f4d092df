import { parseAcl } from '../access/acl.js';
import { ACL_COLUMN } from '../access/acl-filter.js';
import { svcError } from '../core/errors.js';
import type { ObjectValue, StoredRecord } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { type WritePlan, parseWrite } from '../operators/parse-write.js';
import type { Projection, TableSchema } from '../query/plan.js';
import type { FieldOp, StorageAdapter, TableRef } from '../storage/port.js';
import { merged } from '../core/copy.js';

/**
 * Takes the `ACL` entry out of a write body: validated with `parseAcl` (107 with the hosted message)
 * into a `set` of the column, or an `unset` for `null` / `{"__op":"Delete"}` (public again). Every
 * other key goes on to `parseWrite`, which still refuses `ACL.x` paths as reserved (105).
 */
export function splitAcl(body: JsonObject): { readonly fields: JsonObject; readonly acl: FieldOp | null } {
  if (!Object.hasOwn(body, ACL_COLUMN)) return { fields: body, acl: null };
  const { [ACL_COLUMN]: value, ...fields } = body;
  if (value === null || isDeleteOp(value)) return { fields, acl: { kind: 'unset', column: ACL_COLUMN, path: [] } };
  const acl = parseAcl(value);
  // Built directly, not through decodeValue: principals (`*`, `role:a b`) are not Object sub-key names.
  const stored: Record<string, ObjectValue> = {};
  for (const principal of Object.keys(acl)) stored[principal] = { ...acl[principal] };
  return { fields, acl: { kind: 'set', column: ACL_COLUMN, path: [], value: stored } };
}

function isDeleteOp(value: Json | undefined): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && value['__op'] === 'Delete';
}

/** The projection of a checked read: also the columns the row check needs (`TableAccess.rowColumns`). */
export function withColumns(projection: Projection | undefined, needed: readonly string[]): Projection | undefined {
  if (!projection || projection.kind === 'all' || needed.length === 0) return projection;
  if (projection.kind === 'include') {
    const missing = needed.filter((c) => !projection.columns.includes(c));
    return missing.length === 0 ? projection : { kind: 'include', columns: [...projection.columns, ...missing] };
  }
  return projection.columns.some((c) => needed.includes(c)) ? { kind: 'exclude', columns: projection.columns.filter((c) => !needed.includes(c)) } : projection;
}

/** Drops again the checked columns the client's projection did not ask for. */
export function withoutUnrequested(record: StoredRecord, projection: Projection | undefined, checked: readonly string[]): StoredRecord {
  if (!projection || projection.kind === 'all' || checked.length === 0) return record;
  let out: Record<string, unknown> | null = null;
  for (const column of checked) {
    const asked = projection.kind === 'include' ? projection.columns.includes(column) : !projection.columns.includes(column);
    if (asked || !Object.hasOwn(record, column)) continue;
    out ??= { ...record };
    delete out[column];
  }
  return (out ?? record) as StoredRecord;
}

/** 101 unless the record exists and `mayWrite` admits it (a refused write looks like a missing record). */
export async function assertWritable(
  storage: StorageAdapter,
  table: TableRef,
  objectId: string,
  columns: readonly string[],
  mayWrite: (record: StoredRecord) => boolean,
): Promise<void> {
  const current = await storage.get(table, objectId, { kind: 'include', columns });
  if (!current || !mayWrite(current)) throw svcError('objectNotFound', objectId);
}

/** `parseWrite` of a create or update body with its `ACL` entry validated (`splitAcl`) and applied. */
export function parseWriteWithAcl(body: JsonObject, schema: TableSchema | null, timeZone: string): WritePlan {
  const { fields, acl } = splitAcl(body);
  const plan = parseWrite(fields, { schema, timeZone });
  if (!acl) return plan;
  return { ops: [...plan.ops, acl], columns: acl.kind === 'set' ? merged(plan.columns, { [ACL_COLUMN]: { type: 'Object' as const } }) : plan.columns };
}
