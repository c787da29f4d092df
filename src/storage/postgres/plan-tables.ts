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
