import type { ColumnType } from '../../core/values.js';
import type { ColumnSchema, IndexSpec, TableSchema } from '../../query/plan.js';
import { TABLE_MARKER, compileDeleteNamespaceRows } from '../../query/sql/bookkeeping-sql.js';
import { compileDropTable } from '../../query/sql/ddl-compiler.js';
import type { SqlDialect } from '../../query/sql/dialect.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';

/** A row of `_svc_schema` or `_svc_indexes` as a driver returns it (column name -> value). */
export type BookkeepingRow = Readonly<Record<string, unknown>>;

/**
 * A table schema from its bookkeeping rows (bookkeeping-sql.ts selects them): null when there are
 * no schema rows (no such table). Shared by the SQLite and PostgreSQL schema stores, so both read
 * the same layout the same way.
 */
export function schemaFromRows(className: string, rows: readonly BookkeepingRow[], indexRows: readonly BookkeepingRow[]): TableSchema | null {
  if (rows.length === 0) return null;
  const columns: Record<string, ColumnSchema> = {};
  for (const row of rows) {
    const column = String(row.column);
    if (column === TABLE_MARKER) continue;
    const type = String(row.type) as ColumnType;
    columns[column] = row.targetClass ? { type, targetClass: String(row.targetClass) } : { type };
  }
  const indexes = indexRows.map(
    (r): IndexSpec => ({ name: String(r.name), columns: JSON.parse(String(r.columns)) as string[], unique: r.unique === true || r.unique === 1 }),
  );
  return { className, columns, indexes };
}

/**
 * What dropping a namespace runs, from its schema rows (`compileSelectNamespaceRows`): DROP TABLE
 * for every table and Relation join table, then the deletes of its bookkeeping rows.
 */
export function planDropNamespace(dialect: SqlDialect, namespace: string, rows: readonly BookkeepingRow[]): { ddl: CompiledQuery[]; rows: CompiledQuery[] } {
  const ddl: CompiledQuery[] = [];
  for (const row of rows) {
    const className = String(row.className);
    if (row.column === TABLE_MARKER) ddl.push(compileDropTable(dialect, physicalTableName(namespace, className)));
    else if (row.type === 'Relation') ddl.push(compileDropTable(dialect, relationTableName(namespace, className, String(row.column))));
  }
  return { ddl, rows: compileDeleteNamespaceRows(dialect, namespace) };
}
