import type { StorageAdapter, TableRef } from '../storage/port.js';
import { type ClassPermissions, OPEN_CLASS } from './class-permissions.js';

/**
 * Where the records service reads a table's class-level permissions. The schema API persists them and
 * provides a source that caches per table and forgets a table when its permissions change; until a
 * table has permissions set, every operation is open (`OPEN_CLASS`).
 */
export interface ClassPermissionSource {
  /**
   * The table's permissions. `via` is the storage to read through when not cached: inside a
   * transaction, the transaction's adapter (the outer one waits for the transaction to end).
   */
  permissionsOf(table: TableRef, via?: StorageAdapter): Promise<ClassPermissions>;
}

/** Every table open: the source of a service whose schema API is not in use. */
export const openClassPermissionSource: ClassPermissionSource = {
  permissionsOf: async () => OPEN_CLASS,
};
