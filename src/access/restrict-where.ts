import type { PointerValue } from '../core/values.js';
import type { WhereNode } from '../query/plan.js';
import { merged } from '../core/copy.js';

/** Matches no record (an empty `$in` on objectId): what a `$relatedTo` over an unreadable owner becomes. */
export const NO_RECORDS: WhereNode = Object.freeze({
  kind: 'in',
  field: Object.freeze({ column: 'objectId', path: Object.freeze([]) }),
  negate: false,
  values: Object.freeze([]),
});

/** `className\0objectId`: how an owner is named in the set of unreadable owners. */
export function ownerKey(owner: PointerValue): string {
  return `${owner.className}\u0000${owner.objectId}`;
}

/** Walks every node of a where, inner queries' wheres included. */
function walk(where: WhereNode, visit: (node: WhereNode) => void): void {
  const stack: WhereNode[] = [where];
  while (stack.length > 0) {
    const node = stack.pop()!;
    visit(node);
    if (node.kind === 'and' || node.kind === 'or') stack.push(...node.nodes);
    else if (node.kind === 'in_query' || node.kind === 'select') stack.push(node.query.where);
  }
}

/** Every `$relatedTo` owner a where names, at any depth (inner queries included). */
export function relatedOwners(where: WhereNode): PointerValue[] {
  const out: PointerValue[] = [];
  walk(where, (node) => {
    if (node.kind === 'related_to') out.push(node.owner);
  });
  return out;
}

/** The tables of every inner query (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`) a where holds, at any depth. */
export function innerTables(where: WhereNode): Set<string> {
  const out = new Set<string>();
  walk(where, (node) => {
    if (node.kind === 'in_query' || node.kind === 'select') out.add(node.query.table);
  });
  return out;
}

const and = (where: WhereNode, filter: WhereNode | null): WhereNode =>
  filter === null ? where : where.kind === 'all_records' ? filter : { kind: 'and', nodes: [where, filter] };

/**
 * A where as the caller may run it: `filter` (the listed table's row filter; null for none) ANDed at
 * the top, each inner query's table's row filter (`innerFilter`) ANDed into that inner query, so an
 * unreadable record can neither be listed nor act as an oracle through another table's query; a
 * `$relatedTo` whose owner the caller cannot read matches nothing. Pure: the plan stays validated,
 * adapters push it into SQL. Returns `where` itself when nothing applies.
 */
export function restrictWhere(
  where: WhereNode,
  filter: WhereNode | null,
  innerFilter: (table: string) => WhereNode | null,
  unreadableOwners: ReadonlySet<string>,
): WhereNode {
  return and(restrictInner(where, innerFilter, unreadableOwners), filter);
}

function restrictInner(node: WhereNode, innerFilter: (table: string) => WhereNode | null, unreadable: ReadonlySet<string>): WhereNode {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const nodes = node.nodes.map((child) => restrictInner(child, innerFilter, unreadable));
      return nodes.every((child, i) => child === node.nodes[i]) ? node : { kind: node.kind, nodes };
    }
    case 'in_query':
    case 'select': {
      const inner = restrictWhere(node.query.where, innerFilter(node.query.table), innerFilter, unreadable);
      return inner === node.query.where ? node : merged(node, { query: merged(node.query, { where: inner }) });
    }
    case 'related_to':
      return unreadable.has(ownerKey(node.owner)) ? NO_RECORDS : node;
    default:
      return node;
  }
}
