import type { PointerValue } from '../core/values.js';
import { ownerKey, relatedOwners, restrictWhere } from '../access/restrict-where.js';
import type { ListQuery } from '../query/parse.js';
import type { WhereNode } from '../query/plan.js';

/** A non-master caller's read restriction, as the list service and include expansion apply it. */
export interface ReadRestriction {
  /** The ACL read filter of the caller's principals. */
  readonly filter: WhereNode;
  /** Whether the caller may read the owner record of a `$relatedTo`. */
  ownerReadable(owner: PointerValue): Promise<boolean>;
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
