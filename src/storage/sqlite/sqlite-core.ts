import { configError } from '../../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import { mergeColumns } from '../../operators/column-types.js';
import type { AggregatePlan, ColumnSchema, FindPlan, IndexSpec, Projection, TableSchema, WhereNode } from '../../query/plan.js';
import { type SqlSchemaView, compileAggregate, compileCount, compileFind, sqliteDialect } from '../../query/sql/index.js';
import { physicalTableName, relationTableName } from '../../query/sql/layout.js';
import { checkIndexSpec } from '../memory/index-spec.js';
import { projectRecord } from '../memory/projection.js';
import type { FieldOp, TableRef } from '../port.js';
import type { SqliteDatabase } from './database-shape.js';
import { quoteIdent } from './identifiers.js';
import { arrayLayout, decodeRow, decodeValues, encodeRecord } from './row-codec.js';
import { type PlanShape, QueryCache, countShape, findShape } from './query-cache.js';
import { SchemaStore, createBookkeeping } from './schema-store.js';
import { withSqliteErrors } from './sqlite-errors.js';
import { updateRow } from './sqlite-update.js';
import { StatementCache } from './statement-cache.js';
import type { CompiledQuery } from '../../query/sql/index.js';
import type { SqliteStatement } from './database-shape.js';

type Row = Record<string, unknown>;

/** What the core caches per table: its schema (null: missing) and its hot SQL texts. */
interface TableEntry {
  schema: TableSchema | null;
  /** The quoted physical table name. */
  readonly table: string;
  readonly deleteById: string;
}

/**
 * The synchronous core of the SQLite adapter: each method is one statement or one IMMEDIATE
 * transaction, so it is atomic. Schemas are cached in memory; the cache is dropped whenever a
 * transaction rolls back (`invalidate`).
 */
export class SqliteCore {
  readonly statements: StatementCache;
  private readonly store: SchemaStore;
  /** Compiled find/count SQL per plan shape and schema (src/storage/sqlite/query-cache.ts). */
  private readonly queries = new QueryCache();
  /** `SELECT <physical columns> ... WHERE "objectId" = ?` per (frozen) schema, read as arrays. */
  private getSql = new WeakMap<TableSchema, string>();
  /** INSERT texts per (frozen) schema, by the comma-joined physical column names. */
  private insertSql = new WeakMap<TableSchema, Map<string, string>>();
  /** namespace -> className -> entry. */
  private readonly entries = new Map<string, Map<string, TableEntry>>();

  constructor(readonly db: SqliteDatabase) {
    this.statements = new StatementCache(db);
    createBookkeeping(db);
    this.store = new SchemaStore(db, this.statements);
  }

  getSchema(ref: TableRef): TableSchema | null {
    return this.entry(ref).schema;
  }

  ensureColumns(ref: TableRef, wanted: Readonly<Record<string, ColumnSchema>>): TableSchema {
    const cached = this.getSchema(ref);
    if (cached && (hasColumns(cached, wanted) || mergeColumns(ref.className, cached, wanted).added.length === 0)) return cached;
    return this.db
      .transaction(() => {
        const current = this.store.load(ref);
        const { schema, added } = mergeColumns(ref.className, current, wanted);
        if (!current) this.store.createTable(ref);
        for (const [name, column] of added) this.store.addColumn(ref, name, column);
        return this.remember(ref, schema);
      })
      .immediate();
  }

  createIndex(ref: TableRef, index: IndexSpec): void {
    const schema = this.getSchema(ref);
    if (checkIndexSpec('sqlite', schema, index) || !schema) return;
    const spec: IndexSpec = { name: index.name, columns: [...index.columns], unique: index.unique };
    withSqliteErrors(() =>
      this.db
        .transaction(() => {
          this.store.addIndex(ref, spec, schema);
          this.remember(ref, { ...schema, indexes: [...schema.indexes, spec] });
        })
        .immediate(),
    );
  }

  insert(ref: TableRef, record: StoredRecord): void {
    const schema = this.getSchema(ref);
    if (!schema) throw configError('sqlite', `table ${ref.className} does not exist: call ensureColumns first`);
    const columns = encodeRecord(schema, record);
    const names = new Array<string>(columns.length);
    const params = new Array<string | number | null>(columns.length);
    for (let i = 0; i < columns.length; i++) [names[i], params[i]] = columns[i]!;
    // INSERT texts per schema and column list (records of a table mostly share one list).
    let texts = this.insertSql.get(schema);
    if (!texts) this.insertSql.set(schema, (texts = new Map()));
    const key = names.join(',');
    let sql = texts.get(key);
    if (sql === undefined) {
      sql = `INSERT INTO ${this.entry(ref).table} (${names.map((name) => quoteIdent(name)).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`;
      if (texts.size >= 64) texts.clear();
      texts.set(key, sql);
    }
    const text = sql;
    withSqliteErrors(() => this.statements.get(text).run(...params));
  }

  get(ref: TableRef, objectId: string, projection?: Projection): StoredRecord | null {
    const entry = this.entry(ref);
    const schema = entry.schema;
    if (!schema) return null;
    let sql = this.getSql.get(schema);
    if (sql === undefined) {
      sql = `SELECT ${arrayLayout(schema).names.map(quoteIdent).join(', ')} FROM ${entry.table} WHERE "objectId" = ?`;
      this.getSql.set(schema, sql);
    }
    const statement = this.statements.get(sql);
    if (statement.raw) {
      // Array rows: this SQL text is only ever read as arrays (see `find`).
      const values = statement.raw(true).get(objectId) as unknown[] | undefined;
      return values ? projectRecord(decodeValues(schema, values), projection) : null;
    }
    const row = statement.get(objectId) as Row | undefined;
    return row ? projectRecord(decodeRow(schema, row), projection) : null;
  }

  update(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): StoredRecord | null {
    const schema = this.getSchema(ref);
    if (!schema) return null;
    return withSqliteErrors(() => updateRow(this, ref, schema, objectId, ops, updatedAt));
  }

  delete(ref: TableRef, objectId: string): boolean {
    const schema = this.getSchema(ref);
    if (!schema) return false;
    const relations = Object.entries(schema.columns).filter(([, c]) => c.type === 'Relation').map(([name]) => name);
    const remove = () => {
      const { changes } = this.statements.get(this.entry(ref).deleteById).run(objectId);
      if (changes === 0) return false;
      for (const column of relations) {
        this.statements.get(`DELETE FROM ${quoteIdent(relationTableName(ref.namespace, ref.className, column))} WHERE owningId = ?`).run(objectId);
      }
      return true;
    };
    return relations.length === 0 ? remove() : this.db.transaction(remove).immediate();
  }

  find(ref: TableRef, plan: FindPlan): StoredRecord[] {
    const schema = this.getSchema(ref);
    if (!schema) return [];
    const [statement, parameters] = this.prepared(schema, findShape(schema, plan), () =>
      compileFind(ref.className, plan, this.view(ref.namespace), sqliteDialect),
    );
    const projection = plan.projection;
    if (statement.raw) {
      // compileFind selects `physicalColumnNames(schema)`, the order `decodeValues` reads. Its SQL
      // texts (`SELECT t0."objectId", ...`) are only ever read here, always as arrays.
      const rows = statement.raw(true).all(...parameters) as unknown[][];
      const layout = arrayLayout(schema);
      const out: StoredRecord[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = projectRecord(decodeValues(schema, rows[i]!, layout), projection);
      return out;
    }
    const rows = statement.all(...parameters) as Row[];
    return rows.map((row) => projectRecord(decodeRow(schema, row), projection));
  }

  count(ref: TableRef, where: WhereNode): number {
    const schema = this.getSchema(ref);
    if (!schema) return 0;
    const [statement, parameters] = this.prepared(schema, countShape(schema, where), () =>
      compileCount(ref.className, where, this.view(ref.namespace), sqliteDialect),
    );
    const row = statement.get(...parameters) as { n: number | bigint } | undefined;
    return Number(row?.n ?? 0);
  }

  /** The statement and parameters of a find/count: from the shape cache, or compiled (and cached). */
  private prepared(schema: TableSchema, shape: PlanShape | null, compile: () => CompiledQuery): [SqliteStatement, readonly unknown[]] {
    if (shape) {
      const cached = this.queries.get(schema, shape.key);
      if (cached) return [cached.statement, shape.parameters];
      if (cached === undefined) {
        const compiled = compile();
        const statement = this.statements.get(compiled.sql);
        this.queries.remember(schema, shape, compiled, statement);
        return [statement, compiled.parameters];
      }
    }
    const compiled = compile();
    return [this.statements.get(compiled.sql), compiled.parameters];
  }

  aggregate(ref: TableRef, plan: AggregatePlan): Array<Record<string, Value>> {
    if (!this.getSchema(ref)) return [];
    const { query, decode } = compileAggregate(ref.className, plan, this.view(ref.namespace), sqliteDialect);
    return (this.statements.get(query.sql).all(...query.parameters) as Row[]).map((row) => decode(row));
  }

  dropNamespace(namespace: string): void {
    this.db.transaction(() => this.store.dropNamespace(namespace)).immediate();
    this.invalidate();
  }

  /** Forgets cached schemas and statements (after a rollback or a dropped table). */
  invalidate(): void {
    this.entries.clear();
    this.statements.clear();
    this.queries.clear();
    this.getSql = new WeakMap();
    this.insertSql = new WeakMap();
  }

  private remember(ref: TableRef, schema: TableSchema): TableSchema {
    const frozen = freezeSchema(schema);
    this.entry(ref).schema = frozen;
    return frozen;
  }

  private view(namespace: string): SqlSchemaView {
    return { namespace, schema: (className) => this.getSchema({ namespace, className }) };
  }

  private entry(ref: TableRef): TableEntry {
    let tables = this.entries.get(ref.namespace);
    if (!tables) this.entries.set(ref.namespace, (tables = new Map()));
    let entry = tables.get(ref.className);
    if (!entry) {
      const loaded = this.store.load(ref);
      const table = quoteIdent(physicalTableName(ref.namespace, ref.className));
      entry = {
        schema: loaded ? freezeSchema(loaded) : null,
        table,
        deleteById: `DELETE FROM ${table} WHERE "objectId" = ?`,
      };
      tables.set(ref.className, entry);
    }
    return entry;
  }
}

/** Whether `schema` already has every wanted column with the same type and target (nothing to add or check). */
function hasColumns(schema: TableSchema, wanted: Readonly<Record<string, ColumnSchema>>): boolean {
  for (const name in wanted) {
    if (!Object.hasOwn(wanted, name)) continue;
    const current = Object.hasOwn(schema.columns, name) ? schema.columns[name] : undefined;
    const column = wanted[name]!;
    if (!current || current.type !== column.type || current.targetClass !== column.targetClass) return false;
  }
  return true;
}

function freezeSchema(schema: TableSchema): TableSchema {
  const columns: Record<string, ColumnSchema> = {};
  for (const [name, column] of Object.entries(schema.columns)) columns[name] = Object.freeze({ ...column });
  const indexes = schema.indexes.map((i) => Object.freeze({ ...i, columns: Object.freeze([...i.columns]) }));
  return Object.freeze({ className: schema.className, columns: Object.freeze(columns), indexes: Object.freeze(indexes) });
}
