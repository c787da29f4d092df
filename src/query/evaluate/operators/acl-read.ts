import type { Value } from '../../../core/values.js';
import type { WhereNode } from '../../plan.js';
import type { EvalContext, Predicate } from '../context.js';

/** The ACL column (access control's; the plan node names no field). */
const ACL = 'ACL';

/** No ACL, or an entry of one of the principals whose `read` is `true`. */
export function compileAclRead(node: Extract<WhereNode, { kind: 'acl_read' }>, _ctx: EvalContext): Predicate {
  const principals = node.principals;
  return (r) => {
    const acl = (r as Readonly<Record<string, Value>>)[ACL];
    if (acl === null || acl === undefined) return true;
    if (typeof acl !== 'object' || Array.isArray(acl)) return false;
    const grants = acl as Readonly<Record<string, Value>>;
    for (const key of principals) {
      if (!Object.hasOwn(grants, key)) continue;
      const grant = grants[key];
      if (typeof grant === 'object' && grant !== null && !Array.isArray(grant) && (grant as Readonly<Record<string, Value>>)['read'] === true) return true;
    }
    return false;
  };
}
