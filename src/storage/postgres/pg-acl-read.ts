import type { Value } from '../../core/values.js';
import { ACL_READ_COLUMN } from '../../query/sql/acl-read-column.js';
import { aclReadArrayIndexName } from '../../query/sql/ddl-compiler.js';
import { physicalIdent } from '../../query/sql/identifier.js';
import { postgresDialect } from '../../query/sql/postgres-dialect.js';
import { type SqlProgram, rows, schema } from '../sql/sql-program.js';

/**
 * The read principals of a record's ACL on PostgreSQL (D161), kept in `"ACL$read" text[]` beside the
 * `ACL` jsonb column, under a GIN index, as Parse Server keeps `_rperm`: `{*}` when everyone reads
 * (no ACL, or a `*` read grant), otherwise every principal granted `read: true` (`{}` for none).
 * The ACL read filter is then one `"ACL$read" && $1::text[]` with the caller's principals, `*`
 * included. The row codec writes it with every write of `ACL`.
 */
export function aclReadPrincipals(acl: Value | undefined): string[] {
  if (acl === undefined || acl === null) return ['*'];
  if (typeof acl !== 'object' || Array.isArray(acl)) return [];
  const principals: string[] = [];
  for (const principal of Object.keys(acl)) {
    const grant = (acl as Readonly<Record<string, Value>>)[principal];
    if (typeof grant === 'object' && grant !== null && !Array.isArray(grant) && (grant as Readonly<Record<string, Value>>).read === true) principals.push(principal);
  }
  return principals;
}

/** The same principals computed in SQL from the jsonb `ACL` of a row (the fill of a table made before D161). */
const PRINCIPALS_OF_ACL = `CASE WHEN "ACL" IS NULL THEN '{*}'::text[] WHEN jsonb_typeof("ACL") <> 'object' THEN '{}'::text[] ELSE ARRAY(SELECT e.key FROM jsonb_each("ACL") AS e WHERE jsonb_typeof(e.value) = 'object' AND e.value -> 'read' = 'true'::jsonb) END`;

/**
 * Gives a table with an `ACL` column its `ACL$read` GIN index, and first the column when it lacks one (a table made by a version
 * before D161, or one whose ACL column was added after it was made): the column, its values from
 * each row's ACL and its GIN index in one multi-statement query, which PostgreSQL runs as one
 * transaction: no reader sees the column's default `{*}` on a row its ACL restricts. Safe to race
 * (`IF NOT EXISTS`; a second fill computes the same values).
 */
export function* ensureAclReadColumn(table: string): SqlProgram<void> {
  const t = physicalIdent(postgresDialect, table);
  const present = yield* rows({
    sql: `SELECT 1 FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname = $2 AND NOT attisdropped`,
    parameters: [t, ACL_READ_COLUMN],
  });
  const column = physicalIdent(postgresDialect, ACL_READ_COLUMN);
  const index = `CREATE INDEX IF NOT EXISTS ${physicalIdent(postgresDialect, aclReadArrayIndexName(table))} ON ${t} USING gin (${column})`;
  // A table made with its ACL column has the column (CREATE TABLE); its index is made here.
  if (present.length > 0) return yield* schema([{ sql: index, parameters: [] }]);
  const fill = [`ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS ${column} text[] NOT NULL DEFAULT '{*}'`, `UPDATE ${t} SET ${column} = ${PRINCIPALS_OF_ACL} WHERE "ACL" IS NOT NULL`, index];
  yield* schema([{ sql: fill.join('; '), parameters: [] }]);
}
