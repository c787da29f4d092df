import { configError, svcError } from '../../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../../core/values.js';
import { mergeColumns, withoutMissingUnsets } from '../../operators/column-types.js';
import { applyOps } from '../../operators/apply.js';
import type { EvalEnv } from '../../query/evaluate/index.js';
import { runAggregate, runCount, runFind } from '../../query/evaluate/index.js';
import type { AggregatePlan, ColumnSchema, FindPlan, IndexSpec, Projection, TableSchema, WhereNode } from '../../query/plan.js';
import type { FieldOp, ReadOptions, SchemaLimits, TableRef, UpdateImages } from '../port.js';
import { assertNewTable } from '../schema-rules.js';
import { cloneRecord, cloneValue } from '../kit/clone.js';
import { type ReadBudget, readBudget, scanWithin } from '../kit/deadline-scan.js';
import { checkIndexSpec } from '../kit/index-spec.js';
import { type MemoryState, type MemoryTable, followsInCreationOrder } from './memory-state.js';
import { hasDuplicates, violatedUniqueIndex } from '../kit/unique-index.js';
import { freezeSchema } from '../kit/freeze-schema.js';
import { projectRecord } from '../kit/projection.js';

const SCOPE = 'memory';
const EMPTY: ReadonlySet<string> = new Set();
const BUILT_IN: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt']);

/**
 * The synchronous core of the memory adapter: every method runs to completion without yielding, so
 * each is atomic on JavaScript's single thread. Values are deep-copied in and out.
 */
export class MemoryStore {
  constructor(
    readonly state: MemoryState,
    /** Budget of a read whose caller names none, in ms. */
    private readonly defaultBudgetMs = 5000,
  ) {}

  getSchema(ref: TableRef): TableSchema | null {
    return this.table(ref)?.schema ?? null;
  }

  ensureColumns(ref: TableRef, columns: Readonly<Record<string, ColumnSchema>>, limits?: SchemaLimits): TableSchema {
    const table = this.table(ref);
    const { schema, added } = mergeColumns(ref.className, table?.schema ?? null, columns, limits);
    if (table && added.length === 0) return table.schema;
    if (!table) assertNewTable(ref.className, this.tables(ref.namespace, false)?.keys() ?? [], limits);
    const frozen = freezeSchema(schema);
    if (table) table.schema = frozen;
    else {
      this.tables(ref.namespace, true).set(ref.className, {
        schema: frozen,
        records: new Map(),
        relations: new Map(),
        creationOrdered: true,
        lastInserted: undefined,
      });
    }
    return frozen;
  }

  createIndex(ref: TableRef, index: IndexSpec): void {
    const table = this.table(ref);
    if (checkIndexSpec(SCOPE, table?.schema ?? null, index) || !table) return;
    if (index.unique && hasDuplicates(table.records.values(), index)) throw svcError('uniqueViolation', index.columns.join(', '));
    const spec: IndexSpec = Object.freeze({ name: index.name, columns: Object.freeze([...index.columns]), unique: index.unique });
    table.schema = freezeSchema({ ...table.schema, indexes: [...table.schema.indexes, spec] });
  }

  insert(ref: TableRef, record: StoredRecord): void {
    const table = this.requireTable(ref);
    if (table.records.has(record.objectId)) throw svcError('uniqueViolation', 'objectId');
    for (const key of Object.keys(record)) {
      if (!BUILT_IN.has(key) && !Object.hasOwn(table.schema.columns, key)) throw unknownColumn(ref, key);
    }
    const stored = cloneRecord(record);
    assertUnique(table, stored);
    table.records.set(stored.objectId, stored);
    if (!followsInCreationOrder(table.lastInserted, stored)) table.creationOrdered = false;
    table.lastInserted = stored;
  }

  get(ref: TableRef, objectId: string, projection?: Projection): StoredRecord | null {
    const record = this.table(ref)?.records.get(objectId);
    return record ? cloneRecord(projectRecord(record, projection)) : null;
  }

  update(ref: TableRef, objectId: string, allOps: readonly FieldOp[], updatedAt: DateValue): StoredRecord | null {
    const table = this.table(ref);
    const current = table?.records.get(objectId);
    if (!table || !current) return null;
    const ops = withoutMissingUnsets(table.schema, allOps);
    for (const op of ops) {
      if (!Object.hasOwn(table.schema.columns, op.column)) throw unknownColumn(ref, op.column);
    }
    const next = cloneRecord({ ...applyOps(current, ops), updatedAt: cloneValue(updatedAt) });
    assertUnique(table, next);
    for (const op of ops) {
      if (op.kind !== 'add_relation' && op.kind !== 'remove_relation') continue;
      let owners = table.relations.get(op.column);
      if (!owners) table.relations.set(op.column, (owners = new Map()));
      let members = owners.get(objectId);
      if (!members) owners.set(objectId, (members = new Set()));
      for (const id of op.ids) {
        if (op.kind === 'add_relation') members.add(id);
        else members.delete(id);
      }
      if (members.size === 0) owners.delete(objectId);
    }
    table.records.set(objectId, next);
    return cloneRecord(next);
  }

  /** Synchronous, so the read and the update are one atomic step. */
  updateReturningBefore(ref: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): UpdateImages | null {
    const before = this.get(ref, objectId);
    if (before === null) return null;
    const after = this.update(ref, objectId, ops, updatedAt);
    return after === null ? null : { before, after };
  }

  delete(ref: TableRef, objectId: string): boolean {
    const table = this.table(ref);
    if (!table || !table.records.delete(objectId)) return false;
    for (const owners of table.relations.values()) owners.delete(objectId);
    return true;
  }

  find(ref: TableRef, plan: FindPlan, options?: ReadOptions): StoredRecord[] {
    const table = this.table(ref);
    if (!table) return [];
    const budget = this.budget(options);
    const records = scanWithin(table.records.values(), budget);
    return runFind(records, plan, this.env(ref, budget), { inCreationOrder: table.creationOrdered }).map((r) => cloneRecord(r));
  }

  count(ref: TableRef, where: WhereNode, options?: ReadOptions): number {
    const table = this.table(ref);
    const budget = this.budget(options);
    return table ? runCount(scanWithin(table.records.values(), budget), where, this.env(ref, budget)) : 0;
  }

  aggregate(ref: TableRef, plan: AggregatePlan, options?: ReadOptions): Array<Record<string, Value>> {
    const table = this.table(ref);
    if (!table) return [];
    const budget = this.budget(options);
    return runAggregate(scanWithin(table.records.values(), budget), plan, this.env(ref, budget)).map((row) => cloneValue(row) as Record<string, Value>);
  }

  dropNamespace(namespace: string): void {
    this.state.delete(namespace);
  }

  listTables(namespace: string): string[] {
    return [...(this.tables(namespace, false)?.keys() ?? [])];
  }

  dropColumn(ref: TableRef, column: string): boolean {
    const table = this.table(ref);
    if (!table || !Object.hasOwn(table.schema.columns, column)) return false;
    const columns = { ...table.schema.columns };
    delete columns[column];
    table.schema = freezeSchema({ ...table.schema, columns, indexes: table.schema.indexes.filter((index) => !index.columns.includes(column)) });
    table.relations.delete(column);
    // Stored records are shared with snapshots and never changed in place: replace the ones holding the field.
    for (const [objectId, record] of table.records) {
      if (!Object.hasOwn(record, column)) continue;
      const copy: Record<string, unknown> = { ...record };
      delete copy[column];
      table.records.set(objectId, copy as StoredRecord);
    }
    if (table.lastInserted && Object.hasOwn(table.lastInserted, column)) table.lastInserted = table.records.get(table.lastInserted.objectId);
    return true;
  }

  dropIndex(ref: TableRef, name: string): boolean {
    const table = this.table(ref);
    if (!table || !table.schema.indexes.some((index) => index.name === name)) return false;
    table.schema = freezeSchema({ ...table.schema, indexes: table.schema.indexes.filter((index) => index.name !== name) });
    return true;
  }

  dropTable(ref: TableRef): boolean {
    return this.tables(ref.namespace, false)?.delete(ref.className) ?? false;
  }

  private budget(options: ReadOptions | undefined): ReadBudget {
    return readBudget(options?.budgetMs ?? this.defaultBudgetMs);
  }

  /** Inner queries scan other tables under the same budget. */
  private env(ref: TableRef, budget: ReadBudget): EvalEnv {
    const tables = this.tables(ref.namespace, false);
    return {
      className: ref.className,
      records: (className) => scanWithin(tables?.get(className)?.records.values() ?? [], budget),
      relationMembers: (className, objectId, column) => tables?.get(className)?.relations.get(column)?.get(objectId) ?? EMPTY,
      schema: (className) => tables?.get(className)?.schema ?? null,
    };
  }

  private tables(namespace: string, create: true): Map<string, MemoryTable>;
  private tables(namespace: string, create: false): Map<string, MemoryTable> | undefined;
  private tables(namespace: string, create: boolean): Map<string, MemoryTable> | undefined {
    let tables = this.state.get(namespace);
    if (!tables && create) this.state.set(namespace, (tables = new Map()));
    return tables;
  }

  private table(ref: TableRef): MemoryTable | undefined {
    return this.state.get(ref.namespace)?.get(ref.className);
  }

  private requireTable(ref: TableRef): MemoryTable {
    const table = this.table(ref);
    if (!table) throw configError(SCOPE, `table ${ref.className} does not exist: call ensureColumns first`);
    return table;
  }
}

function unknownColumn(ref: TableRef, column: string): Error {
  return configError(SCOPE, `column '${column}' is not in the schema of ${ref.className}: call ensureColumns first`);
}

function assertUnique(table: MemoryTable, record: StoredRecord): void {
  const index = violatedUniqueIndex(table.schema, table.records.values(), record);
  if (index) throw svcError('uniqueViolation', index.columns.join(', '));
}
