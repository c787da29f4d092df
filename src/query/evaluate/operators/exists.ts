import type { StoredRecord, Value } from '../../../core/values.js';
import type { WhereNode } from '../../plan.js';
import type { EvalContext, Predicate } from '../context.js';
import { compileGetter, inheritsName } from '../field.js';

/** `$exists: true` matches any value but null; `$exists: false` matches null and missing. */
export function compileExists(node: Extract<WhereNode, { kind: 'exists' }>, _ctx: EvalContext): Predicate {
  if (node.field.path.length === 0 && !inheritsName(node.field.column)) {
    // Hot path: a plain top-level column read inline, tested by identity only (the value itself,
    // often a string elsewhere in the heap, is never dereferenced).
    const column = node.field.column;
    return node.exists
      ? (r) => {
          const v = (r as Readonly<Record<string, Value>>)[column];
          return v !== null && v !== undefined;
        }
      : (r) => {
          const v = (r as Readonly<Record<string, Value>>)[column];
          return v === null || v === undefined;
        };
  }
  const get = compileGetter(node.field);
  return node.exists
    ? (r: StoredRecord) => {
        const v = get(r);
        return v !== null && v !== undefined;
      }
    : (r: StoredRecord) => {
        const v = get(r);
        return v === null || v === undefined;
      };
}
