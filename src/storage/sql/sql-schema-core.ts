import { configError } from '../../core/errors.js';
import { mergeColumns } from '../../operators/column-types.js';
import type { ColumnSchema, IndexSpec, TableSchema } from '../../query/plan.js';
import type { SqlDialect } from '../../query/sql/dialect.js';
import { type SchemaDrop, planDropColumn, planDropIndex, planDropTable } from '../../query/sql/schema-drops.js';
import { checkIndexSpec } from '../kit/index-spec.js';
import type { SchemaLimits, TableRef } from '../port.js';
import { assertNewTable } from '../schema-rules.js';
import type { SchemaStorePrograms } from './schema-store.js';
import type { SqlProgram } from './sql-program.js';

/** What a schema change is, for the engine that runs it. */
export type SchemaWriteKind = 'claim' | 'index' | 'drop' | 'namespace';

/**
 * The outcome of a claim: the schema before it (null: new table), the schema it meant to record (the
 * current columns, then the added ones in the order asked for), the one recorded after it (its
 * columns in the store's order; a racing process's types win), and the columns it added.
 */
export interface Claim {
  readonly current: TableSchema | null;
  readonly intended: TableSchema;
  readonly claimed: TableSchema | null;
  readonly added: ReadonlyArray<readonly [string, ColumnSchema]>;
}

/**
 * What one SQL engine brings to the schema operations: its schema store's programs, its schema
 * cache, and where its DDL runs. Hooks that touch only the engine's caches are plain functions;
 * hooks that may run statements are SQL programs.
 */
export interface SqlSchemaEngine {
  readonly dialect: SqlDialect;
  readonly store: SchemaStorePrograms;
  /** The schema of a table as the engine knows it now (its cache, else the store); null when it does not exist. */
  schemaForRead(ref: TableRef): SqlProgram<TableSchema | null>;
  /** Waits until the bookkeeping tables exist (PostgreSQL makes them on first use). */
  ready(): SqlProgram<void>;
  /**
   * Runs a schema change atomically. SQLite: one IMMEDIATE transaction for every kind. PostgreSQL:
   * claims and drops in a SERIALIZABLE transaction retried on 40001 (D62); index creation and a
   * namespace's drop on the pool, each DDL statement retried on races.
   */
  schemaWrite<T>(kind: SchemaWriteKind, work: () => SqlProgram<T>): SqlProgram<T>;
  /** Inside the claim's transaction, after the rows were claimed (SQLite runs the DDL here). */
  duringClaim(ref: TableRef, claim: Claim): SqlProgram<void>;
  /** After the claim's transaction committed (PostgreSQL runs the DDL here, outside it). */
  afterClaim(ref: TableRef, claim: Claim): SqlProgram<void>;
  /** Caches a table's schema; answers the cached (frozen) object. */
  remember(ref: TableRef, schema: TableSchema): TableSchema;
  /** Forgets a table's cached schema (a refused claim may come from what another process recorded). */
  forget(ref: TableRef): void;
  /** After a drop ran (`dropped`), or failed or found nothing to drop (false). */
  afterDrop(ref: TableRef, dropped: boolean): void;
  /** After a namespace was dropped. */
  afterNamespaceDrop(): void;
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

/**
 * The schema operations of the storage port over one SQL engine, written once as SQL programs:
 * columns are claimed (the first process to record a column fixes its type, limits and name rules
 * checked against every racing claim) and then made (materialized); indexes and drops are planned
 * against the schema recorded inside the change.
 */
export function sqlSchemaCore(engine: SqlSchemaEngine) {
  const { dialect, store } = engine;
  const scope = dialect.name;

  function* ensureColumns(ref: TableRef, wanted: Readonly<Record<string, ColumnSchema>>, limits?: SchemaLimits): SqlProgram<TableSchema> {
    const known = yield* engine.schemaForRead(ref);
    if (known && (hasColumns(known, wanted) || mergeColumns(ref.className, known, wanted).added.length === 0)) return known;
    let claim: Claim;
    try {
      claim = yield* engine.schemaWrite('claim', function* (): SqlProgram<Claim> {
        const current = yield* store.load(ref);
        const { schema: intended, added } = mergeColumns(ref.className, current, wanted, limits);
        if (current && added.length === 0) return { current, intended, claimed: current, added };
        if (!current) assertNewTable(ref.className, yield* store.tableNames(ref.namespace), limits);
        yield* store.claim(ref, !current, added);
        const result: Claim = { current, intended, claimed: yield* store.load(ref), added };
        yield* engine.duringClaim(ref, result);
        return result;
      });
    } catch (error) {
      engine.forget(ref);
      throw error;
    }
    if (!claim.claimed) throw configError(scope, `table ${ref.className} vanished while its columns were added`);
    const { schema } = mergeColumns(ref.className, claim.claimed, wanted);
    yield* engine.afterClaim(ref, claim);
    return engine.remember(ref, schema);
  }

  function* createIndex(ref: TableRef, index: IndexSpec): SqlProgram<void> {
    if (checkIndexSpec(scope, yield* engine.schemaForRead(ref), index)) return;
    const spec: IndexSpec = { name: index.name, columns: [...index.columns], unique: index.unique };
    const after = yield* engine.schemaWrite('index', function* (): SqlProgram<TableSchema | null> {
      // Another process may have created the index since this one cached the schema (D6).
      const schema = yield* store.load(ref);
      if (checkIndexSpec(scope, schema, index) || !schema) return schema;
      yield* store.addIndex(ref, spec, schema);
      return yield* store.load(ref);
    });
    if (after) engine.remember(ref, after);
  }

  /** Plans a drop against the schema recorded inside the change and runs it. */
  function* drop(ref: TableRef, plan: (schema: TableSchema) => SchemaDrop | null): SqlProgram<boolean> {
    yield* engine.ready();
    let dropped = false;
    try {
      dropped = yield* engine.schemaWrite('drop', function* (): SqlProgram<boolean> {
        const schema = yield* store.load(ref);
        const statements = schema ? plan(schema) : null;
        if (statements) yield* store.drop(statements);
        return statements !== null;
      });
    } finally {
      engine.afterDrop(ref, dropped);
    }
    return dropped;
  }

  function* dropColumn(ref: TableRef, column: string): SqlProgram<boolean> {
    return yield* drop(ref, (schema) => planDropColumn(dialect, ref.namespace, schema, column));
  }

  function* dropIndex(ref: TableRef, name: string): SqlProgram<boolean> {
    return yield* drop(ref, (schema) => planDropIndex(dialect, ref.namespace, schema, name));
  }

  function* dropTable(ref: TableRef): SqlProgram<boolean> {
    return yield* drop(ref, (schema) => planDropTable(dialect, ref.namespace, schema));
  }

  function* dropNamespace(namespace: string): SqlProgram<void> {
    yield* engine.ready();
    yield* engine.schemaWrite('namespace', () => store.dropNamespace(namespace));
    engine.afterNamespaceDrop();
  }

  function* listTables(namespace: string): SqlProgram<string[]> {
    yield* engine.ready();
    return yield* store.tableNames(namespace);
  }

  return { ensureColumns, createIndex, dropColumn, dropIndex, dropTable, dropNamespace, listTables };
}

/** The schema operations of one engine, as programs. */
export type SqlSchemaPrograms = ReturnType<typeof sqlSchemaCore>;
