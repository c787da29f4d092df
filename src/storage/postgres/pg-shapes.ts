import { postgresDialect } from '../../query/sql/index.js';
import type { ShapeBinding } from '../sql/plan-shapes.js';

/**
 * PostgreSQL's find/count shapes (storage/sql/plan-shapes.ts), bound as the postgres dialect binds
 * them: Booleans as themselves; the ACL read filter with `*` written into the text and the other
 * principals as one array parameter (D161); LIMIT written into the text, OFFSET too when 0
 * (`inlineLimit`), so the limit is part of the key. A shape whose first compilation binds anything
 * else is never reused (the cache compares the parameters once).
 */
export const PG_SHAPES: ShapeBinding = {
  booleanParam: (value) => postgresDialect.booleanParam(value),
  aclRead(principals, parameters) {
    const named = principals.filter((key) => key !== '*');
    if (named.length === 0) return 'L*';
    parameters.push(named);
    return 'L*+';
  },
  limit(limit, skip, parameters) {
    if (!Number.isSafeInteger(limit) || limit < 0) {
      parameters.push(limit, skip);
      return 'p';
    }
    if (skip === 0) return 'l' + limit;
    parameters.push(skip);
    return 'l' + limit + 'o';
  },
};
