import type { StoredRecord } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';
import type { RecordBackend } from '../kit/record-backend.js';
import type { TableRef } from '../port.js';

/** One table in memory: its schema, its records by id (in insertion order) and its Relation links. */
interface MemoryTable {
  schema: TableSchema;
  readonly records: Map<string, StoredRecord>;
  /** Relation column -> owner objectId -> related objectIds. */
  readonly relations: Map<string, Map<string, readonly string[]>>;
  /**
   * Whether `records` holds the records in (createdAt, objectId) order: true while every new record
   * comes after the last one, the rule when the clock moves forward. Lets a find in default order
   * stop after its page.
   */
  creationOrdered: boolean;
  lastInserted: StoredRecord | undefined;
}

/** Whether `next` may follow `prev` in (createdAt, objectId) order. ISO dates and objectIds are ASCII. */
function followsInCreationOrder(prev: StoredRecord | undefined, next: StoredRecord): boolean {
  if (!prev) return true;
  const a = prev.createdAt.iso;
  const b = next.createdAt.iso;
  return a < b || (a === b && prev.objectId < next.objectId);
}

/**
 * The memory adapter's persistence: maps of tables, records and Relation links, and nothing else.
 * Everything the port promises (schema rules, field operations, unique indexes, queries,
 * transactions) is `createStorageAdapter`'s, exactly as for an adapter author's backend. The factory
 * hands in fresh copies and copies what it hands out, so records are stored as given.
 */
export class MemoryBackend implements RecordBackend {
  /** Namespace -> className -> table. */
  private readonly namespaces = new Map<string, Map<string, MemoryTable>>();

  loadSchema(ref: TableRef): TableSchema | null {
    return this.table(ref)?.schema ?? null;
  }

  saveSchema(ref: TableRef, schema: TableSchema): void {
    const table = this.table(ref);
    if (table) {
      table.schema = schema;
      return;
    }
    let tables = this.namespaces.get(ref.namespace);
    if (!tables) this.namespaces.set(ref.namespace, (tables = new Map()));
    tables.set(ref.className, { schema, records: new Map(), relations: new Map(), creationOrdered: true, lastInserted: undefined });
  }

  listTables(namespace: string): readonly string[] {
    return [...(this.namespaces.get(namespace)?.keys() ?? [])];
  }

  dropTable(ref: TableRef): void {
    this.namespaces.get(ref.namespace)?.delete(ref.className);
  }

  readRecord(ref: TableRef, objectId: string): StoredRecord | null {
    return this.table(ref)?.records.get(objectId) ?? null;
  }

  writeRecord(ref: TableRef, record: StoredRecord): void {
    const table = this.table(ref);
    if (!table) return;
    const replacing = table.records.has(record.objectId);
    table.records.set(record.objectId, record);
    if (replacing) {
      if (table.lastInserted?.objectId === record.objectId) table.lastInserted = record;
      return;
    }
    if (!followsInCreationOrder(table.lastInserted, record)) table.creationOrdered = false;
    table.lastInserted = record;
  }

  deleteRecord(ref: TableRef, objectId: string): boolean {
    return this.table(ref)?.records.delete(objectId) ?? false;
  }

  scanRecords(ref: TableRef): Iterable<StoredRecord> {
    const records = this.table(ref)?.records;
    return records ? { [Symbol.iterator]: () => records.values() } : [];
  }

  inCreationOrder(ref: TableRef): boolean {
    return this.table(ref)?.creationOrdered === true;
  }

  readRelation(ref: TableRef, column: string, ownerId: string): readonly string[] {
    return this.table(ref)?.relations.get(column)?.get(ownerId) ?? [];
  }

  writeRelation(ref: TableRef, column: string, ownerId: string, ids: readonly string[]): void {
    const table = this.table(ref);
    if (!table) return;
    let owners = table.relations.get(column);
    if (!owners) table.relations.set(column, (owners = new Map()));
    if (ids.length === 0) owners.delete(ownerId);
    else owners.set(ownerId, [...ids]);
  }

  scanRelation(ref: TableRef, column: string): Iterable<readonly [string, readonly string[]]> {
    return [...(this.table(ref)?.relations.get(column) ?? [])];
  }

  close(): void {
    this.namespaces.clear();
  }

  private table(ref: TableRef): MemoryTable | undefined {
    return this.namespaces.get(ref.namespace)?.get(ref.className);
  }
}
