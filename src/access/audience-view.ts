import { type Access, type AccessControl, MASTER_ACCESS } from './access-control.js';
import type { ClassOperation } from './class-permissions.js';
import type { TableRef } from '../storage/port.js';
import type { TableAccess } from './table-access.js';

/** What targeting an audience is: a query over the table, counted or listed. */
const TARGETING: ReadonlySet<ClassOperation> = new Set<ClassOperation>(['find', 'count']);

/**
 * The view of a caller over a table whose rows it targets rather than reads: a client push's audience
 * of `_Installation` (Parse Server runs that query with the master key when client push is on).
 * `find` and `count` reach every row, and rows are projected as the master key's are: they go to the
 * service, never back to the caller. The caller's hidden columns (protected fields, secret columns)
 * stay `hidden`, so its where may not name them (102) and a targeted device is no oracle on them.
 * Every other operation is the caller's own decision, and every other table the where reads (inner
 * queries, `$relatedTo` owners) is read through the caller's own views, as a list would.
 *
 * @example const top = await audienceView(access, await access.accessOf(caller), { namespace, className: '_Installation' });
 */
export async function audienceView(access: AccessControl, level: Access, table: TableRef): Promise<TableAccess> {
  const own = await access.tableAccess(level, table);
  if (own.master) return own;
  const master = await access.tableAccess(MASTER_ACCESS, table);
  const targets = (operation: ClassOperation) => TARGETING.has(operation);
  return {
    table: own.table,
    master: false,
    allows: (operation) => targets(operation) || own.allows(operation),
    assert: (operation) => (targets(operation) ? undefined : own.assert(operation)),
    readFilter: (operation) => (targets(operation) ? master.readFilter(operation) : own.readFilter(operation)),
    mayRead: (row, operation) => (targets(operation) ? master.mayRead(row, operation) : own.mayRead(row, operation)),
    mayWrite: (row, operation) => own.mayWrite(row, operation),
    rowColumns: (operation) => (targets(operation) ? master.rowColumns(operation) : own.rowColumns(operation)),
    writeNeedsRow: (operation, tableHasAcl) => own.writeNeedsRow(operation, tableHasAcl),
    allowsEveryRow: (operation) => targets(operation) || own.allowsEveryRow(operation),
    hidden: own.hidden,
    project: (row) => master.project(row),
  };
}
