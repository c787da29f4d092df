import type { Access, AccessControl } from '../access/access-control.js';
import type { ReadOperation } from '../access/class-permissions.js';
import { NO_RECORDS, innerTables, ownerKey, relatedOwners, restrictWhere } from '../access/restrict-where.js';
import type { TableAccess } from '../access/table-access.js';
import { isValidTableName } from '../core/names.js';
import type { PointerValue } from '../core/values.js';
import { ANY_TABLE, type ListQuery, type QueryFootprint } from '../query/parse.js';
import { secretColumnError } from '../query/parse/context.js';
import type { WhereNode } from '../query/plan.js';
import type { StorageAdapter } from '../storage/port.js';
import { merged } from '../core/copy.js';

/**
 * The caller's access views of the tables one request reads (each asked of access/ once per
 * request): the listed table, inner queries' tables, `$relatedTo` owners, `include` targets.
 */
export interface ReadViews {
  view(className: string): Promise<TableAccess>;
  /**
   * Whether the caller could GET `owner`: refused as that GET would be when the owner's table
   * closes `get` to the caller (11006 / 11171: a table-wide answer, no oracle), else whether its
   * ACL and pointer permissions admit the row.
   */
  readable(owner: PointerValue): Promise<boolean>;
}

/** The read views of one caller over `storage` (through `access`, whose caches make repeats free). */
export function readViews(storage: StorageAdapter, access: AccessControl, level: Access, namespace: string): ReadViews {
  const views = new Map<string, Promise<TableAccess>>();
  const view = (className: string): Promise<TableAccess> => {
    let found = views.get(className);
    if (!found) views.set(className, (found = access.tableAccess(level, { namespace, className })));
    return found;
  };
  return {
    view,
    async readable(owner) {
      if (!isValidTableName(owner.className)) return false;
      const ownerView = await view(owner.className);
      ownerView.assert('get');
      if (ownerView.master) return true;
      const record = await storage.get({ namespace, className: owner.className }, owner.objectId, { kind: 'include', columns: ownerView.rowColumns('get') });
      return record !== null && ownerView.mayRead(record, 'get');
    },
  };
}

/**
 * Refuses (102, as a secret column) a query naming a column hidden from the caller in any table it
 * touches (protected fields, secret columns), so a where, order or `$select` cannot reveal what the
 * output hides. `top` is the caller's view of the listed table, already asked.
 */
export async function assertNoHiddenColumns(footprint: QueryFootprint, top: TableAccess, views: ReadViews): Promise<void> {
  const anyTable = footprint.get(ANY_TABLE);
  for (const [className, columns] of footprint) {
    if (className === ANY_TABLE || !isValidTableName(className)) continue;
    const { hidden } = className === top.table.className ? top : await views.view(className);
    if (hidden.size === 0) continue;
    for (const column of [...columns, ...(anyTable ?? [])]) if (hidden.has(column)) throw secretColumnError(column);
  }
}

/** The read operation a list query is: a bare count (`count=1&limit=0`) is `count`, the rest `find`. */
export function listOperation(query: URLSearchParams): ReadOperation {
  return query.get('count') === '1' && query.get('limit') === '0' ? 'count' : 'find';
}

/**
 * The parsed list query as the caller may run it: refused (11006 / 11171) unless `operation` is
 * allowed on the listed table (`top`, the caller's view of it) and `find` on every inner query's
 * table (an inner query answers exactly as a direct find of its table would); the row filters of
 * those views ANDed into the where and into each inner query; a `$relatedTo` whose owner the caller
 * could not GET matches nothing.
 */
export async function restrictListQuery(query: ListQuery, top: TableAccess, operation: ReadOperation, views: ReadViews): Promise<ListQuery> {
  top.assert(operation);
  const where = query.kind === 'count' ? query.where : query.plan.where;
  const filters = new Map<string, WhereNode | null>();
  for (const table of innerTables(where)) {
    const inner = await views.view(table);
    inner.assert('find');
    filters.set(table, inner.readFilter('find'));
  }
  const unreadable = new Set<string>();
  for (const owner of relatedOwners(where)) {
    const key = ownerKey(owner);
    if (!unreadable.has(key) && !(await views.readable(owner))) unreadable.add(key);
  }
  // Every inner table's view was asked above: a table missing here cannot happen, and would match nothing.
  const restricted = restrictWhere(where, top.readFilter(operation), (table) => (filters.has(table) ? filters.get(table)! : NO_RECORDS), unreadable);
  if (restricted === where) return query;
  if (query.kind === 'count') return merged(query, { where: restricted });
  if (query.kind === 'aggregate') return merged(query, { plan: merged(query.plan, { where: restricted }) });
  return merged(query, { plan: merged(query.plan, { where: restricted }) });
}
