import type { FindPlan, TableSchema, WhereNode } from '../../query/plan.js';
import { schemaColumn } from '../../query/schema-lookup.js';
import { aclReadNeedle, aclReadParameters } from '../../query/sql/acl-read-column.js';
import { ONE_BY_ONE_UP_TO } from '../../query/sql/acl-read-sql.js';
import { splitAclRead } from '../../query/sql/find-compiler.js';
import { sqliteAdapterDialect } from '../../query/sql/index.js';
import * as shapes from '../sql/plan-shapes.js';
import { type PlanShape, type ShapeBinding, orderKey, shapeKey, whereKey } from '../sql/plan-shapes.js';
import type { SqliteStatement } from './database-shape.js';

/**
 * SQLite's find/count shapes (storage/sql/plan-shapes.ts): Booleans as 0/1, the ACL read filter as
 * each principal but `*` and its needle (acl-read-sql.ts; the SQL only depends on their count), LIMIT
 * and OFFSET as parameters. Plus the shapes of its two ACL forms, the top-first find and the branch
 * count (D147).
 */
export const SQLITE_SHAPES: ShapeBinding = {
  booleanParam: (value) => sqliteAdapterDialect.booleanParam(value),
  aclRead(principals, parameters) {
    for (const value of aclReadParameters(principals)) parameters.push(value);
    return 'L' + principals.length;
  },
  limit(limit, skip, parameters) {
    parameters.push(limit, skip);
    return '';
  },
};

export type { PlanShape } from '../sql/plan-shapes.js';
export type CachedQuery = shapes.CachedQuery<SqliteStatement>;
export class QueryCache extends shapes.QueryCache<SqliteStatement> {}

export function findShape(schema: TableSchema, plan: FindPlan): PlanShape | null {
  return shapes.findShape(schema, plan, SQLITE_SHAPES);
}

export function countShape(schema: TableSchema, where: WhereNode): PlanShape | null {
  return shapes.countShape(schema, where, SQLITE_SHAPES);
}

/**
 * The shape of a find as `compileFindTopFirst` compiles it: the where without its ACL filter, the
 * number of records its first step keeps, the filter's values, limit and skip. Null when the where
 * has no such filter or is not cacheable.
 */
export function topFirstShape(schema: TableSchema, plan: FindPlan, keep: number): PlanShape | null {
  const split = plan.nearest ? null : splitAclRead(plan.where);
  const acl = schemaColumn(schema, 'ACL');
  if (!split || !acl || acl.type !== 'Object') return null;
  const parameters: unknown[] = [];
  const rest = shapeKey(() => whereKey(split.rest, schema, SQLITE_SHAPES, parameters));
  if (rest === null) return null;
  const key = 'P' + rest + '|L' + split.acl.principals.length + '|O' + orderKey(plan);
  parameters.push(keep, ...aclReadParameters(split.acl.principals), plan.limit, plan.skip);
  return { key, parameters };
}

/**
 * The shape of a count as `compileCountByAclBranch` compiles it: the where without its ACL filter
 * once per branch, each followed by that branch's values (none for everyone, one principal each or
 * all of them in one list, the needles). Null when the where has no such filter or is not cacheable.
 */
export function branchCountShape(schema: TableSchema, where: WhereNode): PlanShape | null {
  const split = splitAclRead(where);
  const acl = schemaColumn(schema, 'ACL');
  if (!split || !acl || acl.type !== 'Object') return null;
  const rest: unknown[] = [];
  const restKey = shapeKey(() => whereKey(split.rest, schema, SQLITE_SHAPES, rest));
  if (restKey === null) return null;
  const key = 'B' + restKey + '|L' + split.acl.principals.length;
  const principals = split.acl.principals;
  let named = 0;
  for (const principal of principals) if (principal !== '*') named++;
  const oneByOne = named <= ONE_BY_ONE_UP_TO;
  const parameters = rest.slice();
  if (!oneByOne) for (const value of rest) parameters.push(value);
  for (const principal of principals) {
    if (principal === '*') continue;
    if (oneByOne) for (const value of rest) parameters.push(value);
    parameters.push(principal);
  }
  for (const value of rest) parameters.push(value);
  for (const principal of principals) if (principal !== '*') parameters.push(aclReadNeedle(principal));
  return { key, parameters };
}

