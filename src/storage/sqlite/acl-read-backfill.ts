import type { Value } from '../../core/values.js';
import { ACL_READ_COLUMN, aclReadText } from '../../query/sql/acl-read-column.js';
import { physicalIdent } from '../../query/sql/identifier.js';
import { SCHEMA_TABLE, physicalTableName } from '../../query/sql/layout.js';
import { sqliteDialect } from '../../query/sql/sqlite-dialect.js';
import type { SqliteDatabase } from './database-shape.js';

const BATCH = 1000;

/**
 * Gives every table whose `ACL` column is an Object the `ACL$read` column beside it
 * (acl-read-column.ts) when it has none, i.e. tables made before the column existed, and fills it
 * from the stored ACLs. One IMMEDIATE transaction: another process opening the same file waits, then
 * finds the column present. A table without records with an ACL costs one ALTER TABLE.
 */
export function backfillAclRead(db: SqliteDatabase): void {
  const tables = db
    .prepare(`SELECT "namespace", "className" FROM ${physicalIdent(sqliteDialect, SCHEMA_TABLE)} WHERE "column" = 'ACL' AND "type" = 'Object'`)
    .all() as Array<{ namespace: string; className: string }>;
  if (tables.length === 0) return;
  const hasColumn = db.prepare(`SELECT 1 FROM pragma_table_info(?) WHERE "name" = ?`);
  const missing = () => tables.map((t) => physicalTableName(t.namespace, t.className)).filter((table) => hasColumn.get(table, ACL_READ_COLUMN) === undefined);
  if (missing().length === 0) return;
  db.transaction(() => {
    for (const table of missing()) fill(db, physicalIdent(sqliteDialect, table));
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

/** A stored ACL's JSON; text that is not JSON reads no one (as the JSON filter, which finds no grant in it). */
function parseStored(text: string): Value {
  try {
    return JSON.parse(text) as Value;
  } catch {
    return [];
  }
}
