import type { WhereNode } from '../plan.js';
import type { ListQuery } from '../parse.js';

/**
 * Every table a validated list query touches, each with the columns the query names on it (where
 * keys at any depth, `$select` keys, `$relatedTo` keys, order, keys, groupby, aggregates, include).
 * Walked from the plan, not the wire JSON, so nothing the query runs can escape it, and without a
 * cut-off: the parser already bounds the plan's size.
 */
export type QueryFootprint = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Columns named by `include` steps past the first, and by field lists of expanded objects: their
 * table is only known once a Pointer is followed, so every table's guard checks them.
 */
export const ANY_TABLE = '*';

/** The footprint of a parsed list query over `className`. */
export function listQueryFootprint(query: ListQuery, className: string): QueryFootprint {
  const found = new Map<string, Set<string>>();
  const name = (table: string, column: string) => {
    let columns = found.get(table);
    if (!columns) found.set(table, (columns = new Set()));
    if (column !== '') columns.add(column);
  };
  name(className, '');
  if (query.kind === 'count') {
    walkWhere(query.where, className, name);
    return found;
  }
  if (query.kind === 'aggregate') {
    walkWhere(query.plan.where, className, name);
    for (const g of query.plan.groupBy) name(className, g.column);
    for (const a of query.plan.aggregates) name(className, a.column);
    return found;
  }
  const { plan, include } = query;
  walkWhere(plan.where, className, name);
  for (const term of plan.order) name(className, term.field.column);
  if (plan.projection.kind !== 'all') for (const column of plan.projection.columns) name(className, column);
  for (const path of include) {
    path.forEach((step, i) => {
      name(i === 0 ? className : ANY_TABLE, step.column);
      for (const field of step.fields ?? []) name(ANY_TABLE, field.split('.')[0]!);
    });
  }
  return found;
}

type Namer = (table: string, column: string) => void;

function walkWhere(root: WhereNode, rootTable: string, name: Namer): void {
  const stack: Array<[WhereNode, string]> = [[root, rootTable]];
  while (stack.length > 0) {
    const [node, table] = stack.pop()!;
    switch (node.kind) {
      case 'all_records':
        break;
      case 'and':
      case 'or':
        for (const child of node.nodes) stack.push([child, table]);
        break;
      case 'in_query':
        name(table, node.field.column);
        name(node.query.table, '');
        stack.push([node.query.where, node.query.table]);
        break;
      case 'select':
        name(table, node.field.column);
        name(node.query.table, node.key.column);
        stack.push([node.query.where, node.query.table]);
        break;
      case 'related_to':
        name(node.owner.className, node.key);
        break;
      case 'acl_read':
        name(table, 'ACL');
        break;
      default:
        name(table, node.field.column);
    }
  }
}
