import type { Value } from '../../core/values.js';
import type { ColumnSchema } from '../plan.js';

/**
 * The read principals of a record's ACL, kept beside the `ACL` JSON column where the dialect has
 * `aclReadColumn` (svcbase's SQLite adapter, `sqliteAdapterDialect`): `,<principal>,<principal>,` for each principal granted `read: true`, or
 * NULL when everyone may read (no ACL, or a `*` read grant). The ACL read filter then tests
 * `"ACL$read" IS NULL OR instr("ACL$read", ',<principal>,') > 0` instead of parsing the JSON once per
 * principal per row (D128: the indexed find went from 0.68x to 0.9x of no filter in raw SQLite).
 *
 * The row codec writes it with every write of `ACL`, so it always agrees with the JSON; tables made
 * before it existed get it on open (src/storage/sqlite/acl-read-backfill.ts).
 */
export const ACL_READ_COLUMN = 'ACL$read';

/** Principals never contain it (acl.ts: `*`, user objectIds, `role:<name>`), so a needle cannot straddle two. */
const SEPARATOR = ',';

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
  let text = SEPARATOR;
  if (typeof acl !== 'object' || Array.isArray(acl)) return text;
  for (const principal of Object.keys(acl)) {
    const grant = (acl as Readonly<Record<string, Value>>)[principal];
    if (typeof grant !== 'object' || grant === null || Array.isArray(grant) || (grant as Readonly<Record<string, Value>>).read !== true) continue;
    if (principal === '*') return null;
    if (!principal.includes(SEPARATOR)) text += principal + SEPARATOR;
  }
  return text;
}

/** What the filter looks for: one principal between separators. */
export function aclReadNeedle(principal: string): string {
  return SEPARATOR + principal + SEPARATOR;
}
