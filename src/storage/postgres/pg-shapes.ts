import { render } from '../../query/sql/fragment.js';
import { postgresDialect } from '../../query/sql/index.js';
import type { ShapeBinding } from '../sql/plan-shapes.js';

/**
 * PostgreSQL's find/count shapes (storage/sql/plan-shapes.ts), bound as the postgres dialect binds
 * them: Booleans as themselves; the ACL read filter with `*` written into the text and the other
 * principals as one array parameter (D161); the limit as the dialect's `inlineLimit` writes it (its
 * text is part of the key, its parameters read off the plan). A shape whose first compilation binds
 * anything else is never reused (the cache compares the parameters once).
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
    const inline = postgresDialect.inlineLimit?.(limit, skip);
    if (!inline) {
      parameters.push(limit, skip);
      return 'p';
    }
    const written = render(inline, postgresDialect.placeholder);
    for (const value of written.parameters) parameters.push(value);
    return written.sql;
  },
};
