import type { StoredRecord } from '../../core/values.js';
import type { TableSchema } from '../../query/plan.js';

/**
 * The memory adapter's state. Stored records are never mutated in place (an update stores a new
 * object), so a snapshot only copies the maps; relation sets are copied because they are mutated.
 */
export interface MemoryTable {
  schema: TableSchema;
  readonly records: Map<string, StoredRecord>;
  /** Relation column -> owner objectId -> related objectIds. */
  readonly relations: Map<string, Map<string, Set<string>>>;
  /**
   * Whether `records` (a Map: insertion order) holds the records in default query order,
   * (createdAt, objectId) ascending. True while every insert comes after the previous one, which is
   * the rule when the clock moves forward; lets finds in default order stop after their page.
   */
  creationOrdered: boolean;
  /** The most recently inserted record (what the next insert is compared with). */
  lastInserted: StoredRecord | undefined;
}

/** Whether `next` may follow `prev` in (createdAt, objectId) order. ISO dates and objectIds are ASCII. */
export function followsInCreationOrder(prev: StoredRecord | undefined, next: StoredRecord): boolean {
  if (!prev) return true;
  const a = prev.createdAt.iso;
  const b = next.createdAt.iso;
  return a < b || (a === b && prev.objectId < next.objectId);
}

/** Namespace -> className -> table. */
export type MemoryState = Map<string, Map<string, MemoryTable>>;

/** A copy that shares records and schemas (immutable) but not maps and sets. */
export function snapshotState(state: MemoryState): MemoryState {
  const copy: MemoryState = new Map();
  for (const [namespace, tables] of state) {
    const tablesCopy = new Map<string, MemoryTable>();
    for (const [className, table] of tables) {
      const relations = new Map<string, Map<string, Set<string>>>();
      for (const [column, owners] of table.relations) {
        relations.set(column, new Map([...owners].map(([owner, ids]) => [owner, new Set(ids)])));
      }
      tablesCopy.set(className, {
        schema: table.schema,
        records: new Map(table.records),
        relations,
        creationOrdered: table.creationOrdered,
        lastInserted: table.lastInserted,
      });
    }
    copy.set(namespace, tablesCopy);
  }
  return copy;
}

/** Replaces the contents of `state` with those of `snapshot`. */
export function restoreState(state: MemoryState, snapshot: MemoryState): void {
  state.clear();
  for (const [namespace, tables] of snapshot) state.set(namespace, tables);
}
