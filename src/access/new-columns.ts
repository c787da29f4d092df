import { svcError } from '../core/errors.js';
import { ACL_COLUMN } from './acl-filter.js';
import type { TableAccess } from './table-access.js';

/**
 * Refuses a non-master write that would add columns to `view`'s table: 11180 while the schema is
 * `locked` (also for a table that does not exist yet), else 11171 unless the table's `addField`
 * permission admits the caller (on a create, for every row: pointer permissions admit a row that
 * already points to the caller, and a new one does not exist yet). The ACL column is built in:
 * adding it is never a schema change. Every writer that may add columns asks it before its
 * `ensureColumns` (records, the users service), so nothing is written when it refuses.
 *
 * @example
 * assertNewColumnsAllowed(view, await storage.getSchema(ref), plan.columns, 'update', app.settings.schema.locked);
 */
export function assertNewColumnsAllowed(
  view: TableAccess,
  schema: { readonly columns: Readonly<Record<string, unknown>> } | null,
  columns: Readonly<Record<string, unknown>>,
  operation: 'create' | 'update',
  locked: boolean,
): void {
  if (view.master) return;
  const className = view.table.className;
  const existing = schema?.columns ?? {};
  const added = Object.keys(columns).find((column) => column !== ACL_COLUMN && !Object.hasOwn(existing, column));
  if (added === undefined && schema) return;
  if (locked) throw svcError('schemaLocked', className, added ?? '*');
  if (added === undefined) return;
  view.assert('addField');
  if (operation === 'create' && !view.allowsEveryRow('addField')) throw svcError('classPermissionDenied', 'addField', className);
}
