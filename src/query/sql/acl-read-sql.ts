import { SEVERAL_BELOW, aclReadNeedle } from './acl-read-column.js';
import { and, or, type Cond } from './cond.js';
import type { SqlQueryDialect } from './dialect.js';
import { join, param, raw, sql, type Sql } from './fragment.js';

/**
 * Principals tested one by one (a chain of `=`, or one count each) up to this many; more with one
 * `IN (...)`: SQLite builds a lookup table for the list, which costs more than a few comparisons
 * (and, in a count, than a few index seeks).
 */
export const ONE_BY_ONE_UP_TO = 8;

/**
 * The rows the ACL read filter admits, as disjoint conditions on the `ACL$read` column
 * (acl-read-column.ts): everyone reads (NULL); the one principal granted is the caller's (`=`, one
 * condition per principal, or one `IN` beyond ONE_BY_ONE_UP_TO); two or more are granted and the
 * caller is among them (below `-`, then `instr`). Their OR is the filter; a count may also add up one
 * count per condition, each a range of an index that carries the column after the where's
 * equalities (D147). `principals` must include `*`.
 */
export interface AclReadBranches {
  readonly everyone: Sql;
  readonly one: readonly Sql[];
  readonly several: Cond;
}

/**
 * The branches for a caller's principals. Parameters in the order of `aclReadParameters`: each
 * principal but `*` as itself, then each as a needle.
 */
export function aclReadBranches(column: Sql, principals: readonly string[], dialect: SqlQueryDialect): AclReadBranches {
  const contains = dialect.aclReadColumn?.contains;
  if (!contains) throw new Error('[svcbase] [query] the dialect keeps no ACL$read column');
  const named = principals.filter((key) => key !== '*');
  const one =
    named.length <= ONE_BY_ONE_UP_TO
      ? named.map((key) => sql`${column} = ${param(key)}`)
      : [sql`${column} IN (${join(named.map((key) => sql`${param(key)}`), ', ')})`];
  const several = named.length === 0 ? false : and([sql`${column} < ${raw(`'${SEVERAL_BELOW}'`)}`, or(named.map((key) => contains(column, aclReadNeedle(key))))]);
  return { everyone: sql`${column} IS NULL`, one, several };
}

/** The ACL read filter on `ACL$read`: the OR of the branches, cheapest first. */
export function aclReadCond(column: Sql, principals: readonly string[], dialect: SqlQueryDialect): Cond {
  const { everyone, one, several } = aclReadBranches(column, principals, dialect);
  return or([everyone, ...one, several]);
}
