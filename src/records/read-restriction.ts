import type { PointerValue } from '../core/values.js';
import { ownerKey, relatedOwners, restrictWhere } from '../access/restrict-where.js';
import { ANY_TABLE, type ListQuery, type QueryFootprint } from '../query/parse.js';
import { secretColumnError } from '../query/parse/context.js';
import type { WhereNode } from '../query/plan.js';

/** A non-master caller's read restriction, as the list service and include expansion apply it. */
export interface ReadRestriction {
  /** The ACL read filter of the caller's principals. */
  readonly filter: WhereNode;
  /** Whether the caller may read the owner record of a `$relatedTo`. */
  ownerReadable(owner: PointerValue): Promise<boolean>;
  /** Columns of a table the caller may neither read nor query (its protected fields). */
  hiddenColumns(className: string): Promise<ReadonlySet<string>>;
}

/**
 * Refuses (102, as a secret column) a query naming a protected field of any table it touches, so a
 * where, order or `$select` cannot reveal what the output hides.
 */
export async function assertNoHiddenColumns(footprint: QueryFootprint, restriction: ReadRestriction): Promise<void> {
  const anyTable = footprint.get(ANY_TABLE);
  for (const [className, columns] of footprint) {
    if (className === ANY_TABLE) continue;
    const hidden = await restriction.hiddenColumns(className);
    if (hidden.size === 0) continue;
    for (const column of [...columns, ...(anyTable ?? [])]) if (hidden.has(column)) throw secretColumnError(column);
  }
}

/** A record without the given columns (the same object when none is present). */
export function withoutColumns<T extends Readonly<Record<string, unknown>>>(record: T, hidden: ReadonlySet<string>): T {
  if (hidden.size === 0) return record;
  let out: Record<string, unknown> | null = null;
  for (const column of hidden) {
    if (!Object.hasOwn(record, column)) continue;
    out ??= { ...record };
    delete out[column];
  }
  return (out ?? record) as T;
}

/** The parsed list query with the restriction pushed into its where (find, count and statistics alike). */
export async function restrictListQuery(query: ListQuery, restriction: ReadRestriction): Promise<ListQuery> {
  const where = query.kind === 'count' ? query.where : query.plan.where;
  const unreadable = new Set<string>();
  for (const owner of relatedOwners(where)) {
    const key = ownerKey(owner);
    if (!unreadable.has(key) && !(await restriction.ownerReadable(owner))) unreadable.add(key);
  }
  const restricted = restrictWhere(where, restriction.filter, unreadable);
  if (query.kind === 'count') return { ...query, where: restricted };
  if (query.kind === 'aggregate') return { ...query, plan: { ...query.plan, where: restricted } };
  return { ...query, plan: { ...query.plan, where: restricted } };
}
