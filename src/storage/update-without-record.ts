import type { DateValue } from '../core/values.js';
import type { FieldOp, StorageAdapter, TableRef } from './port.js';

/** Applies an update through the adapter's `updateWithoutReturning`, or its `update` where it has none: true when the record exists. */
export async function updateWithoutRecord(target: StorageAdapter, table: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Promise<boolean> {
  if (target.updateWithoutReturning) return target.updateWithoutReturning(table, objectId, ops, updatedAt);
  return (await target.update(table, objectId, ops, updatedAt)) !== null;
}
