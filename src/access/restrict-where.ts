import type { PointerValue } from '../core/values.js';
import type { WhereNode } from '../query/plan.js';

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

/** Every `$relatedTo` owner a where names, at any depth (inner queries included). */
export function relatedOwners(where: WhereNode): PointerValue[] {
  const out: PointerValue[] = [];
  const walk = (node: WhereNode): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        for (const child of node.nodes) walk(child);
        return;
      case 'in_query':
      case 'select':
        walk(node.query.where);
        return;
      case 'related_to':
        out.push(node.owner);
        return;
      default:
        return;
    }
  };
  walk(where);
  return out;
}

const and = (where: WhereNode, filter: WhereNode): WhereNode =>
  where.kind === 'all_records' ? filter : { kind: 'and', nodes: [where, filter] };

/**
 * A where as a non-master caller may run it: the ACL read `filter` ANDed at the top and into every
 * inner query (`$inQuery`, `$notInQuery`, `$select`, `$dontSelect`), so an unreadable record can
 * neither be listed nor act as an oracle through another table's query; a `$relatedTo` whose owner
 * the caller cannot read matches nothing. Pure: the plan stays validated, adapters push it into SQL.
 */
export function restrictWhere(where: WhereNode, filter: WhereNode, unreadableOwners: ReadonlySet<string>): WhereNode {
  return and(restrictInner(where, filter, unreadableOwners), filter);
}

function restrictInner(node: WhereNode, filter: WhereNode, unreadable: ReadonlySet<string>): WhereNode {
  switch (node.kind) {
    case 'and':
    case 'or':
      return { kind: node.kind, nodes: node.nodes.map((child) => restrictInner(child, filter, unreadable)) };
    case 'in_query':
    case 'select':
      return { ...node, query: { ...node.query, where: restrictWhere(node.query.where, filter, unreadable) } };
    case 'related_to':
      return unreadable.has(ownerKey(node.owner)) ? NO_RECORDS : node;
    default:
      return node;
  }
}
