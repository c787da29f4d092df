import type { Value } from '../../core/values.js';
import type { ColumnSchema } from '../plan.js';

/**
 * The read principals of a record's ACL, kept beside the `ACL` JSON column where the dialect has
 * `aclReadColumn` (svcbase's SQLite adapter, `sqliteAdapterDialect`), in one of three forms:
 *
 * - NULL when everyone may read (no ACL, or a `*` read grant);
 * - the principal itself when exactly one is granted read (`u1`, `role:mods`): the common owner-only
 *   or role-only ACL, tested with `=` (and found by an index seek, D147);
 * - `,<principal>,<principal>,` otherwise (two or more; `,` for none), tested with `instr`. These
 *   all start with `,`, so they sort below `-` while no single principal does (principals never
 *   contain `,`, and the ones acl.ts accepts start with a letter, a digit, `_` or `-`).
 *
 * Files written before D147 kept single principals as `,<principal>,` too; those still read right
 * (the `instr` test finds them) and are rewritten to the short form when such a file is opened
 * (src/storage/sqlite/acl-read-backfill.ts).
 *
 * The row codec writes the column with every write of `ACL`, so it always agrees with the JSON;
 * tables made before it existed get it on open.
 */
export const ACL_READ_COLUMN = 'ACL$read';

/** Principals never contain it (acl.ts: `*`, user objectIds, `role:<name>`), so a needle cannot straddle two. */
const SEPARATOR = ',';

/**
 * Every value of two or more principals (and of none) sorts below this, every single principal
 * at or above it: `"ACL$read" < '-'` selects exactly the `instr` form, as one index range.
 */
export const SEVERAL_BELOW = '-';

/** Whether a logical column carries the read-principals column: the `ACL` column, an Object. */
export function carriesAclRead(name: string, column: ColumnSchema): boolean {
  return name === 'ACL' && column.type === 'Object';
}

/**
 * The column's text for an ACL value. A key containing the separator is left out (fail closed: it
 * could otherwise match two principals); stored ACLs are validated, so none has one.
 */
export function aclReadText(acl: Value | undefined): string | null {
  if (acl === undefined || acl === null) return null;
  if (typeof acl !== 'object' || Array.isArray(acl)) return SEPARATOR;
  const principals: string[] = [];
  for (const principal of Object.keys(acl)) {
    const grant = (acl as Readonly<Record<string, Value>>)[principal];
    if (typeof grant !== 'object' || grant === null || Array.isArray(grant) || (grant as Readonly<Record<string, Value>>).read !== true) continue;
    if (principal === '*') return null;
    if (!principal.includes(SEPARATOR)) principals.push(principal);
  }
  if (principals.length === 1) return principals[0]!;
  return SEPARATOR + principals.map((p) => p + SEPARATOR).join('');
}

/** What the `instr` test looks for: one principal between separators. */
export function aclReadNeedle(principal: string): string {
  return SEPARATOR + principal + SEPARATOR;
}

/**
 * The values the ACL read filter binds for a caller's principals, in the order the SQL compiler
 * binds them (where-compiler.ts, `aclReadCond`): each principal but `*` as itself (the `=` tests),
 * then each as a needle (the `instr` tests). The query cache reads them off a plan with this.
 */
export function aclReadParameters(principals: readonly string[]): string[] {
  const named = principals.filter((key) => key !== '*');
  return [...named, ...named.map(aclReadNeedle)];
}
