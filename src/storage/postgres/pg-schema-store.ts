import type { ColumnSchema, IndexSpec, TableSchema } from '../../query/plan.js';
import { planDropNamespace, schemaFromRows } from '../sql/schema-rows.js';
import {
  TABLE_MARKER,
  compileCreateBookkeeping,
  compileInsertIndexRow,
  compileInsertSchemaRow,
  compileSelectIndexRows,
  compileSelectNamespaceRows,
  compileSelectSchemaRows,
  compileSelectTableNames,
} from '../../query/sql/bookkeeping-sql.js';
import { compileAddColumn, compileCreateIndex, compileCreateJoinTable, compileCreateTable, indexName } from '../../query/sql/ddl-compiler.js';
import { carriesAclRead } from '../../query/sql/acl-read-column.js';
import { physicalIdent } from '../../query/sql/identifier.js';
import { shortIdentifier } from '../../query/sql/long-identifier.js';
import type { CompiledQuery } from '../../query/sql/fragment.js';
import type { SchemaDrop } from '../../query/sql/schema-drops.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { postgresDialect } from '../../query/sql/postgres-dialect.js';
import type { TableRef } from '../port.js';
import type { PgQueryable, PgRows } from './pg-client.js';
import { retryingDdl } from './pg-errors.js';
import { ensureAclReadColumn } from './pg-acl-read.js';

/**
 * The btree indexes of a table made before D160: none of their columns says `NULLS FIRST`, which
 * every index made since spells (unique ones included). Primary keys are not asked about.
 */
const OLD_INDEXES = `SELECT i.relname AS "name" FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid WHERE x.indrelid = to_regclass($1) AND NOT x.indisprimary AND i.relam = (SELECT oid FROM pg_am WHERE amname = 'btree') AND pg_get_indexdef(x.indexrelid) NOT LIKE '%NULLS FIRST%'`;

const D = postgresDialect;

/** Runs one compiled statement as a prepared statement. */
export function runQuery(client: PgQueryable, query: CompiledQuery): PromiseLike<PgRows> {
  return client.unsafe(query.sql, query.parameters as never[], { prepare: true });
}

/** Runs DDL (no parameters), unprepared, retried on races with other instances (pg-errors.ts). */
async function ddl(client: PgQueryable, statements: readonly CompiledQuery[]): Promise<void> {
  for (const statement of statements) await retryingDdl(() => client.unsafe(statement.sql));
}

/** Creates the two bookkeeping tables of layout.ts when missing (safe to race). */
export function createPgBookkeeping(client: PgQueryable): Promise<void> {
  return ddl(client, compileCreateBookkeeping(D));
}

/**
 * Table schemas in `_svc_schema`/`_svc_indexes` and the DDL behind them, on a PostgreSQL client
 * (the pool, or a transaction's connection). Schema rows are claimed first (`ON CONFLICT DO
 * NOTHING`: the first instance to record a column fixes its type), then the DDL runs with the
 * claimed types, every statement idempotent (`IF NOT EXISTS`), so instances creating the same
 * table or column at once converge (D62).
 */
export class PgSchemaStore {
  constructor(private readonly client: PgQueryable) {}

  /** The persisted schema of a table, or null when it does not exist. */
  async load(ref: TableRef): Promise<TableSchema | null> {
    const rows = await runQuery(this.client, compileSelectSchemaRows(D, ref.namespace, ref.className));
    if (rows.length === 0) return null;
    return schemaFromRows(ref.className, rows, await runQuery(this.client, compileSelectIndexRows(D, ref.namespace, ref.className)));
  }

  async tableNames(namespace: string): Promise<string[]> {
    return (await runQuery(this.client, compileSelectTableNames(D, namespace))).map((row) => String(row.className));
  }

  /** Records the table marker and columns; a row that exists is kept (its type wins). */
  async claim(ref: TableRef, table: boolean, columns: ReadonlyArray<readonly [string, ColumnSchema]>): Promise<void> {
    if (table) await runQuery(this.client, compileInsertSchemaRow(D, ref.namespace, ref.className, TABLE_MARKER, '', null));
    for (const [name, column] of columns) {
      await runQuery(this.client, compileInsertSchemaRow(D, ref.namespace, ref.className, name, column.type, column.targetClass ?? null));
    }
  }

  /**
   * Makes the physical table match a recorded schema: the table with every column, the join tables
   * of Relations. Idempotent; also repairs a table whose claim was recorded by an instance that
   * stopped before its DDL ran.
   */
  async materialize(ref: TableRef, schema: TableSchema, only?: ReadonlyArray<readonly [string, ColumnSchema]>): Promise<void> {
    const table = physicalTableName(ref.namespace, ref.className);
    const all = Object.entries(schema.columns);
    // The table first, with every recorded column: an instance adding a column may get here before
    // the instance that claimed the table ran its CREATE TABLE.
    await ddl(this.client, compileCreateTable(D, table, all));
    for (const [name, column] of only ?? all) {
      if (column.type === 'Relation') await ddl(this.client, compileCreateJoinTable(D, relationTableName(ref.namespace, ref.className, name)));
      else if (only) await ddl(this.client, compileAddColumn(D, table, name, column));
      if (carriesAclRead(name, column)) await retryingDdl(() => ensureAclReadColumn(this.client, table));
    }
  }

  /**
   * Makes again the indexes of a table made before D160, whose columns are not spelled in the order
   * finds emit (no `NULLS FIRST`, no `objectId` tie-break): the `(createdAt, objectId)` index and
   * each declared one. Each is replaced, not supplemented (writes keep one entry per index): the new
   * one is built under a temporary name, the old one dropped and the new one renamed, in one
   * multi-statement query that PostgreSQL runs as one transaction, so a unique index never lapses.
   * Once per table per instance.
   */
  async upgradeIndexes(ref: TableRef, schema: TableSchema): Promise<void> {
    const table = physicalTableName(ref.namespace, ref.className);
    const rows = await runQuery(this.client, { sql: OLD_INDEXES, parameters: [physicalIdent(D, table)] });
    if (rows.length === 0) return;
    const old = new Set(rows.map((row) => String(row.name)));
    const swap = (name: string, create: (name: string) => string): string =>
      [create(`${name}$new`), `DROP INDEX IF EXISTS ${physicalIdent(D, name)}`, `ALTER INDEX ${physicalIdent(D, `${name}$new`)} RENAME TO ${physicalIdent(D, name)}`].join('; ');
    const swaps: string[] = [];
    const createdAt = `${table}$$createdAt`;
    if (old.has(shortIdentifier(createdAt, 63))) {
      swaps.push(swap(createdAt, (name) => compileCreateTable(D, table, [])[1]!.sql.replace(physicalIdent(D, createdAt), () => physicalIdent(D, name))));
    }
    for (const index of schema.indexes) {
      const name = indexName(table, index);
      if (old.has(shortIdentifier(name, 63))) swaps.push(swap(name, () => compileCreateIndex(D, table, { ...index, name: `${index.name}$new` }, schema).sql));
    }
    for (const statement of swaps) await retryingDdl(() => this.client.unsafe(statement));
  }

  /** Creates a declared index and records it (a racing record of the same index is kept). */
  async addIndex(ref: TableRef, index: IndexSpec, schema: TableSchema): Promise<void> {
    await ddl(this.client, [compileCreateIndex(D, physicalTableName(ref.namespace, ref.className), index, schema)]);
    await retryingDdl(async () => {
      try {
        await runQuery(this.client, compileInsertIndexRow(D, ref.namespace, ref.className, index.name, index.columns, index.unique));
      } catch (error) {
        // Another instance recorded the same index first: nothing to add.
        if ((error as { code?: unknown }).code !== '23505') throw error;
      }
    });
  }

  /** Runs a planned drop (src/query/sql/schema-drops.ts): its DDL, then the bookkeeping rows. Call inside a transaction. */
  async drop(plan: SchemaDrop): Promise<void> {
    for (const statement of plan.ddl) await this.client.unsafe(statement.sql);
    for (const statement of plan.rows) await runQuery(this.client, statement);
  }

  /** Drops every table of a namespace (data, join tables, bookkeeping rows). */
  async dropNamespace(namespace: string): Promise<void> {
    const plan = planDropNamespace(D, namespace, await runQuery(this.client, compileSelectNamespaceRows(D, namespace)));
    await ddl(this.client, plan.ddl);
    for (const statement of plan.rows) await runQuery(this.client, statement);
  }
}
