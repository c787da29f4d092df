import type { Json } from '../../core/wire-values.js';
import { ALL_RECORDS, type WhereNode } from '../plan.js';
import { countNode, type WhereScope } from './context.js';

import type { JsonObject } from '../../core/wire-values.js';
export type { JsonObject };

export function isJsonObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Freezes a node after counting it against the query's budget. */
export function node<T extends WhereNode>(scope: WhereScope, value: T): T {
  countNode(scope);
  return Object.freeze(value);
}

/** Conjunction with the trivial cases folded: no node is "all records", one node is itself. */
export function conjunction(scope: WhereScope, nodes: WhereNode[]): WhereNode {
  const kept = nodes.filter((n) => n.kind !== 'all_records');
  if (kept.length === 0) return ALL_RECORDS;
  if (kept.length === 1) return kept[0]!;
  return node(scope, { kind: 'and', nodes: Object.freeze(kept) });
}

