import { configError, svcError } from '../../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import { applyOps } from '../../operators/apply.js';
import { mergeColumns, withoutMissingUnsets } from '../../operators/column-types.js';
import { type EvalEnv, runAggregate, runCount, runFind } from '../../query/evaluate/index.js';
import type { AggregatePlan, ColumnSchema, FindPlan, IndexSpec, Projection, TableSchema, WhereNode } from '../../query/plan.js';
import type { FieldOp, ReadOptions, SchemaLimits, TableRef, UpdateImages } from '../port.js';
import { assertNewTable } from '../schema-rules.js';
import { cloneRecord, cloneValue } from './clone.js';
import { type ReadBudget, readBudget, scanWithin } from './deadline-scan.js';
import { freezeSchema } from './freeze-schema.js';
import { checkIndexSpec } from './index-spec.js';
import { readsRelations, referencedTables } from './plan-tables.js';
import { projectRecord } from './projection.js';
import type { RecordBackend, RecordBackendTraits } from './record-backend.js';
import { UndoJournal } from './undo-journal.js';
import { hasDuplicates, mayViolateUnique, violatedUniqueIndex } from './unique-index.js';
import { merged } from '../../core/copy.js';

const BUILT_IN: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt']);
const EMPTY: ReadonlySet<string> = new Set();

/** A table's snapshot for the journal of a drop: everything needed to put it back. */
interface TableCopy {
  readonly schema: TableSchema;
  readonly records: StoredRecord[];
  readonly relations: Array<readonly [string, string, readonly string[]]>;
}

/**
 * The storage port's semantics over a {@link RecordBackend}: schema merging and name rules, index
 * specs and unique indexes, field operations, projections, query evaluation (the reference
 * evaluator over scanned records) and the undo journal of transactions. Not reentrant: the adapter
 * (create-storage-adapter.ts) runs one call at a time.
 */
export class RecordCore {
  readonly journal = new UndoJournal();

  constructor(
    private readonly backend: RecordBackend,
    private readonly scope: string,
    /** Budget of a read whose caller names none, in ms. */
    private readonly defaultBudgetMs: number,
    private readonly traits: RecordBackendTraits = {},
  ) {}

  async getSchema(ref: TableRef): Promise<TableSchema | null> {
    const schema = await this.backend.loadSchema(ref);
    return schema ? freezeSchema(schema) : null;
  }

  async ensureColumns(ref: TableRef, columns: Readonly<Record<string, ColumnSchema>>, limits?: SchemaLimits): Promise<TableSchema> {
    const current = await this.getSchema(ref);
    const { schema, added } = mergeColumns(ref.className, current, columns, limits);
    if (current && added.length === 0) return current;
    if (!current) assertNewTable(ref.className, await this.backend.listTables(ref.namespace), limits);
    await this.saveSchema(ref, schema, current);
    return freezeSchema(schema);
  }

  async createIndex(ref: TableRef, index: IndexSpec): Promise<void> {
    const schema = await this.getSchema(ref);
    if (checkIndexSpec(this.scope, schema, index) || !schema) return;
    const spec: IndexSpec = { name: index.name, columns: [...index.columns], unique: index.unique };
    if (spec.unique && hasDuplicates(await this.backend.scanRecords(ref), spec)) throw svcError('uniqueViolation', spec.columns.join(', '));
    await this.saveSchema(ref, { ...schema, indexes: [...schema.indexes, spec] }, schema);
  }

  async insert(ref: TableRef, record: StoredRecord): Promise<void> {
    const schema = await this.getSchema(ref);
    if (!schema) throw configError(this.scope, `table ${ref.className} does not exist: call ensureColumns first`);
    for (const key of Object.keys(record)) {
      if (!BUILT_IN.has(key) && !Object.hasOwn(schema.columns, key)) throw this.unknownColumn(ref, key);
    }
    if (await this.backend.readRecord(ref, record.objectId)) throw svcError('uniqueViolation', 'objectId');
    const stored = cloneRecord(record);
    await this.assertUnique(ref, schema, stored);
    await this.writeRecord(ref, stored, null);
  }

  async get(ref: TableRef, objectId: string, projection?: Projection): Promise<StoredRecord | null> {
    const record = await this.backend.readRecord(ref, objectId);
    return record ? cloneRecord(projectRecord(record, projection)) : null;
  }

  async update(ref: TableRef, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): Promise<StoredRecord | null> {
    return (await this.updateReturningBefore(ref, objectId, allOps, updatedAt))?.after ?? null;
  }

  /** Read, apply every operation, check unique indexes, write: atomic because calls never interleave. */
  async updateReturningBefore(ref: TableRef, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): Promise<UpdateImages | null> {
    const schema = await this.getSchema(ref);
    const current = schema ? await this.backend.readRecord(ref, objectId) : null;
    if (!schema || !current) return null;
    const ops = withoutMissingUnsets(schema, allOps);
    for (const op of ops) {
      if (!Object.hasOwn(schema.columns, op.column)) throw this.unknownColumn(ref, op.column);
    }
    const before = cloneRecord(current);
    const next = cloneRecord(merged(applyOps(before, ops), { updatedAt: cloneValue(updatedAt) }));
    await this.assertUnique(ref, schema, next);
    for (const op of ops) {
      if (op.kind !== 'add_relation' && op.kind !== 'remove_relation') continue;
      const members = new Set(await this.backend.readRelation(ref, op.column, objectId));
      for (const id of op.ids) {
        if (op.kind === 'add_relation') members.add(id);
        else members.delete(id);
      }
      await this.writeRelation(ref, op.column, objectId, [...members]);
    }
    await this.writeRecord(ref, next, current);
    return { before, after: cloneRecord(next) };
  }

  async delete(ref: TableRef, objectId: string): Promise<boolean> {
    const schema = await this.getSchema(ref);
    const current = schema ? await this.backend.readRecord(ref, objectId) : null;
    if (!schema || !current) return false;
    for (const [column, spec] of Object.entries(schema.columns)) {
      if (spec.type === 'Relation') await this.writeRelation(ref, column, objectId, []);
    }
    const kept = cloneRecord(current);
    this.journal.record(() => this.backend.writeRecord(ref, kept));
    return this.backend.deleteRecord(ref, objectId);
  }

  async find(ref: TableRef, plan: FindPlan, options?: ReadOptions): Promise<StoredRecord[]> {
    const loaded = await this.load(ref, plan.where, options);
    if (!loaded) return [];
    const inCreationOrder = (await this.backend.inCreationOrder?.(ref)) === true;
    return runFind(loaded.env.records(ref.className), plan, loaded.env, { inCreationOrder }).map((record) => cloneRecord(record));
  }

  async count(ref: TableRef, where: WhereNode, options?: ReadOptions): Promise<number> {
    const loaded = await this.load(ref, where, options);
    return loaded ? runCount(loaded.env.records(ref.className), where, loaded.env) : 0;
  }

  async aggregate(ref: TableRef, plan: AggregatePlan, options?: ReadOptions): Promise<Array<Record<string, Value>>> {
    const loaded = await this.load(ref, plan.where, options);
    if (!loaded) return [];
    return runAggregate(loaded.env.records(ref.className), plan, loaded.env).map((row) => cloneValue(row) as Record<string, Value>);
  }

  async listTables(namespace: string): Promise<string[]> {
    return [...(await this.backend.listTables(namespace))];
  }

  async dropColumn(ref: TableRef, column: string): Promise<boolean> {
    const schema = await this.getSchema(ref);
    if (!schema || !Object.hasOwn(schema.columns, column)) return false;
    const columns = { ...schema.columns };
    delete columns[column];
    await this.saveSchema(ref, { ...schema, columns, indexes: schema.indexes.filter((index) => !index.columns.includes(column)) }, schema);
    if (schema.columns[column]!.type === 'Relation') {
      for (const [owner] of [...(await this.backend.scanRelation(ref, column))]) await this.writeRelation(ref, column, owner, []);
    }
    for (const record of [...(await this.backend.scanRecords(ref))]) {
      if (!Object.hasOwn(record, column)) continue;
      const copy: Record<string, Value> = cloneRecord(record);
      delete copy[column];
      await this.writeRecord(ref, copy as StoredRecord, record);
    }
    return true;
  }

  async dropIndex(ref: TableRef, name: string): Promise<boolean> {
    const schema = await this.getSchema(ref);
    if (!schema || !schema.indexes.some((index) => index.name === name)) return false;
    await this.saveSchema(ref, { ...schema, indexes: schema.indexes.filter((index) => index.name !== name) }, schema);
    return true;
  }

  async dropTable(ref: TableRef): Promise<boolean> {
    const schema = await this.getSchema(ref);
    if (!schema) return false;
    const copy = await this.copyTable(ref, schema);
    this.journal.record(() => this.restoreTable(ref, copy));
    await this.backend.dropTable(ref);
    return true;
  }

  async dropNamespace(namespace: string): Promise<void> {
    for (const className of await this.listTables(namespace)) await this.dropTable({ namespace, className });
  }

  /**
   * Everything a read evaluates against, loaded up front (the evaluator reads synchronously): the
   * queried table, the tables its inner queries read, and their Relation links when the where may
   * read any. Null when the queried table does not exist.
   */
  private async load(ref: TableRef, where: WhereNode, options: ReadOptions | undefined): Promise<{ env: EvalEnv } | null> {
    const schema = await this.getSchema(ref);
    if (!schema) return null;
    const budget: ReadBudget = readBudget(options?.budgetMs ?? this.defaultBudgetMs);
    const schemas = new Map<string, TableSchema | null>([[ref.className, schema]]);
    for (const className of referencedTables(where)) {
      if (!schemas.has(className)) schemas.set(className, await this.getSchema({ namespace: ref.namespace, className }));
    }
    const records = new Map<string, Iterable<StoredRecord>>();
    const relations = new Map<string, Map<string, ReadonlySet<string>>>();
    const withRelations = readsRelations(where);
    for (const [className, tableSchema] of schemas) {
      if (!tableSchema) continue;
      const table = { namespace: ref.namespace, className };
      const scanned = await this.backend.scanRecords(table);
      records.set(className, this.traits.stableScans === true ? scanned : [...scanned]);
      if (!withRelations) continue;
      for (const [column, spec] of Object.entries(tableSchema.columns)) {
        if (spec.type !== 'Relation') continue;
        const owners = new Map<string, ReadonlySet<string>>();
        for (const [owner, ids] of await this.backend.scanRelation(table, column)) owners.set(owner, new Set(ids));
        relations.set(`${className}\u0000${column}`, owners);
      }
    }
    const env: EvalEnv = {
      className: ref.className,
      records: (className) => scanWithin(records.get(className) ?? [], budget),
      relationMembers: (className, objectId, column) => relations.get(`${className}\u0000${column}`)?.get(objectId) ?? EMPTY,
      schema: (className) => schemas.get(className) ?? null,
    };
    return { env };
  }

  private async saveSchema(ref: TableRef, schema: TableSchema, previous: TableSchema | null): Promise<void> {
    this.journal.record(() => (previous ? this.backend.saveSchema(ref, previous) : this.backend.dropTable(ref)));
    await this.backend.saveSchema(ref, freezeSchema(schema));
  }

  private async writeRecord(ref: TableRef, record: StoredRecord, previous: StoredRecord | null): Promise<void> {
    const kept = previous ? cloneRecord(previous) : null;
    this.journal.record(() => (kept ? this.backend.writeRecord(ref, kept) : this.backend.deleteRecord(ref, record.objectId)));
    await this.backend.writeRecord(ref, record);
  }

  private async writeRelation(ref: TableRef, column: string, ownerId: string, ids: readonly string[]): Promise<void> {
    const previous = [...(await this.backend.readRelation(ref, column, ownerId))];
    this.journal.record(() => this.backend.writeRelation(ref, column, ownerId, previous));
    await this.backend.writeRelation(ref, column, ownerId, ids);
  }

  private async copyTable(ref: TableRef, schema: TableSchema): Promise<TableCopy> {
    const records = [...(await this.backend.scanRecords(ref))].map((record) => cloneRecord(record));
    const relations: Array<readonly [string, string, readonly string[]]> = [];
    for (const [column, spec] of Object.entries(schema.columns)) {
      if (spec.type !== 'Relation') continue;
      for (const [owner, ids] of await this.backend.scanRelation(ref, column)) relations.push([column, owner, [...ids]]);
    }
    return { schema, records, relations };
  }

  private async restoreTable(ref: TableRef, copy: TableCopy): Promise<void> {
    await this.backend.saveSchema(ref, copy.schema);
    for (const record of copy.records) await this.backend.writeRecord(ref, record);
    for (const [column, owner, ids] of copy.relations) await this.backend.writeRelation(ref, column, owner, ids);
  }

  /** Scans the table only when a unique index covers the record. */
  private async assertUnique(ref: TableRef, schema: TableSchema, record: StoredRecord): Promise<void> {
    if (!mayViolateUnique(schema, record)) return;
    const violated = violatedUniqueIndex(schema, await this.backend.scanRecords(ref), record);
    if (violated) throw svcError('uniqueViolation', violated.columns.join(', '));
  }

  private unknownColumn(ref: TableRef, column: string): Error {
    return configError(this.scope, `column '${column}' is not in the schema of ${ref.className}: call ensureColumns first`);
  }
}
