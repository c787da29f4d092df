import type { WhereNode } from '../../query/plan.js';

/**
 * The other tables a where tree reads (`$inQuery`/`$select` inner tables, `$relatedTo` owners): an
 * asynchronous adapter loads their schemas before compiling, since the compilers ask for schemas
 * synchronously.
 */
export function referencedTables(where: WhereNode, out: Set<string> = new Set()): Set<string> {
  switch (where.kind) {
    case 'and':
    case 'or':
      for (const node of where.nodes) referencedTables(node, out);
      break;
    case 'in_query':
    case 'select':
      out.add(where.query.table);
      referencedTables(where.query.where, out);
      break;
    case 'related_to':
      out.add(where.owner.className);
      break;
    default:
      break;
  }
  return out;
}

/**
 * Whether evaluating `where` may read Relation links: `$relatedTo`, an inner query (it may match
 * through a Relation column), or a Pointer compared with what may be a Relation column.
 */
export function readsRelations(where: WhereNode): boolean {
  switch (where.kind) {
    case 'and':
    case 'or':
      return where.nodes.some(readsRelations);
    case 'in_query':
    case 'select':
    case 'related_to':
      return true;
    case 'compare':
      return typeof where.value === 'object' && where.value !== null && !Array.isArray(where.value) && (where.value as { __type?: unknown }).__type === 'Pointer';
    default:
      return false;
  }
}
