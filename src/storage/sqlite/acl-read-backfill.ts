import type { Value } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';
import { ACL_READ_COLUMN, SEVERAL_BELOW, aclReadText } from '../../query/sql/acl-read-column.js';
import { compileCreateIndex, compileDropIndex, indexCarriesAclRead, indexName, indexPhysicalColumns } from '../../query/sql/ddl-compiler.js';
import { physicalIdent } from '../../query/sql/identifier.js';
import { SCHEMA_TABLE, physicalTableName } from '../../query/sql/layout.js';
import { sqliteAdapterDialect, sqliteDialect } from '../../query/sql/sqlite-dialect.js';
import type { TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';

const BATCH = 1000;

/** One row per stored format that changed after files were written: its name and the version the file holds. */
const FORMAT_TABLE = '_svc_format';
const ACL_READ_FORMAT = 'acl_read';
/** 2: a single read principal is kept as itself, not as `,<principal>,` (D147). */
const ACL_READ_VERSION = 2;

/**
 * Brings the `ACL$read` column (acl-read-column.ts) of a file written by an earlier version up to
 * date, in one IMMEDIATE transaction (another process opening the same file waits, then finds
 * nothing left to do):
 *
 * - a table whose `ACL` column is an Object and has no `ACL$read` gets it, filled from the stored
 *   ACLs (tables made before the column existed, D128);
 * - once per file, single principals kept as `,<principal>,` become the principal itself (D147;
 *   until then they read right, only without an index seek);
 * - a declared index of such a table that lacks the trailing `ACL$read` is made again with it (D147).
 *
 * A file with nothing to change costs a look at the schema and at each such index's columns.
 */
export function upgradeAclRead(db: SqliteDatabase, load: (ref: TableRef) => TableSchema | null): void {
  const format = physicalIdent(sqliteDialect, FORMAT_TABLE);
  db.exec(`CREATE TABLE IF NOT EXISTS ${format} ("name" TEXT PRIMARY KEY NOT NULL, "version" INTEGER NOT NULL) WITHOUT ROWID`);
  const version = db.prepare(`SELECT "version" FROM ${format} WHERE "name" = ?`);
  const hasColumn = db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE "name" = ?`);
  const indexColumns = db.prepare(`SELECT "name" FROM pragma_index_info(?) ORDER BY "seqno"`);

  const survey = () => {
    const refs = (
      db.prepare(`SELECT "namespace", "className" FROM ${physicalIdent(sqliteDialect, SCHEMA_TABLE)} WHERE "column" = 'ACL' AND "type" = 'Object'`).all() as Array<{
        namespace: string;
        className: string;
      }>
    ).map((row): TableRef => ({ namespace: row.namespace, className: row.className }));
    const missing = refs.filter((ref) => hasColumn.get(physicalTableName(ref.namespace, ref.className), ACL_READ_COLUMN) === undefined);
    const current = (version.get(ACL_READ_FORMAT) as { version: number } | undefined)?.version ?? 0;
    return { refs, missing, stale: current < ACL_READ_VERSION };
  };
  /** Declared indexes of the table whose physical columns are not what they must be now. */
  const misshapen = (ref: TableRef) => {
    const schema = load(ref);
    if (!schema) return [];
    const table = physicalTableName(ref.namespace, ref.className);
    return schema.indexes
      .filter((index) => indexCarriesAclRead(sqliteAdapterDialect, index, schema))
      .filter((index) => {
        const have = (indexColumns.all(indexName(table, index)) as Array<{ name: string }>).map((row) => row.name);
        return have.join('\u0000') !== indexPhysicalColumns(sqliteAdapterDialect, index, schema).join('\u0000');
      })
      .map((index) => ({ table, index, schema }));
  };

  const first = survey();
  if (first.missing.length === 0 && !first.stale && !first.refs.some((ref) => misshapen(ref).length > 0)) return;
  db.transaction(() => {
    const { refs, missing, stale } = survey();
    for (const ref of missing) fill(db, physicalIdent(sqliteDialect, physicalTableName(ref.namespace, ref.className)));
    if (stale) {
      for (const ref of refs) if (!missing.includes(ref)) shortenSingles(db, physicalIdent(sqliteDialect, physicalTableName(ref.namespace, ref.className)));
      db.prepare(`INSERT OR REPLACE INTO ${format} ("name", "version") VALUES (?, ?)`).run(ACL_READ_FORMAT, ACL_READ_VERSION);
    }
    for (const ref of refs) {
      for (const { table, index, schema } of misshapen(ref)) {
        db.exec(compileDropIndex(sqliteAdapterDialect, table, index).sql);
        db.exec(compileCreateIndex(sqliteAdapterDialect, table, index, schema).sql);
      }
    }
  }).immediate();
}

function fill(db: SqliteDatabase, table: string): void {
  const column = physicalIdent(sqliteDialect, ACL_READ_COLUMN);
  db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} TEXT`);
  const page = db.prepare(`SELECT rowid AS "rowid", "ACL" AS "acl" FROM ${table} WHERE rowid > ? AND "ACL" IS NOT NULL ORDER BY rowid LIMIT ${BATCH}`);
  const write = db.prepare(`UPDATE ${table} SET ${column} = ? WHERE rowid = ?`);
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = page.all(after) as Array<{ rowid: number; acl: string }>;
    for (const row of rows) write.run(aclReadText(parseStored(row.acl)), row.rowid);
    if (rows.length < BATCH) return;
    after = rows[rows.length - 1]!.rowid;
  }
}

/** `,<principal>,` (one principal, the form before D147) becomes `<principal>`; lists of two or more stay. */
function shortenSingles(db: SqliteDatabase, table: string): void {
  const c = physicalIdent(sqliteDialect, ACL_READ_COLUMN);
  const inner = `substr(${c}, 2, length(${c}) - 2)`;
  db.exec(`UPDATE ${table} SET ${c} = ${inner} WHERE ${c} < '${SEVERAL_BELOW}' AND length(${c}) > 2 AND instr(${inner}, ',') = 0`);
}

/** A stored ACL's JSON; text that is not JSON reads no one (as the JSON filter, which finds no grant in it). */
function parseStored(text: string): Value {
  try {
    return JSON.parse(text) as Value;
  } catch {
    return [];
  }
}
