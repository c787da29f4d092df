import type { DateValue, StoredRecord } from '../core/values.js';
import type { FieldOp, StorageAdapter, TableRef, UpdateImages } from './port.js';
import { HeldEvents, type WriteEvent, type WriteObservers } from './write-events.js';

/** Maps a table namespace to the id of the application that owns it. */
export type NamespaceOwner = (namespace: string) => string;

/**
 * The one write choke point: wraps the service's storage adapter so every insert, update and delete,
 * whichever feature makes it (records, batch, users, sessions), emits one WriteEvent after it
 * committed. Inside `transaction(work)` events are held (one per record: see `mergeEvents`) and
 * delivered only once the outermost transaction committed; a rolled-back transaction (or nested
 * savepoint) drops its events. With no
 * observer registered, writes pass straight through (no before-image read).
 */
export function observedStorage(inner: StorageAdapter, observers: WriteObservers, owner: NamespaceOwner): StorageAdapter {
  return observe(inner, { observers, owner, deliver: (event) => observers.emit(event), inTransaction: false });
}

interface Scope {
  readonly observers: WriteObservers;
  readonly owner: NamespaceOwner;
  /** Where this scope's events go: to the observers, or to the enclosing transaction's buffer. */
  readonly deliver: (event: WriteEvent) => void;
  readonly inTransaction: boolean;
}

function observe(target: StorageAdapter, scope: Scope): StorageAdapter {
  const event = (op: WriteEvent['op'], table: TableRef, objectId: string, images: { before?: StoredRecord; after?: StoredRecord }): void =>
    scope.deliver({ op, app: scope.owner(table.namespace), className: table.className, objectId, ...images });

  return {
    name: target.name,
    capabilities: { ...target.capabilities, updateReturnsBefore: true },
    getSchema: (table) => target.getSchema(table),
    ensureColumns: (table, columns, limits) => target.ensureColumns(table, columns, limits),
    createIndex: (table, index) => target.createIndex(table, index),
    get: (table, objectId, projection) => target.get(table, objectId, projection),
    find: (table, plan, options) => target.find(table, plan, options),
    count: (table, where, options) => target.count(table, where, options),
    aggregate: (table, plan, options) => target.aggregate(table, plan, options),
    dropNamespace: (namespace) => target.dropNamespace(namespace),
    close: () => target.close(),

    insert(table, record) {
      if (!scope.observers.active) return target.insert(table, record);
      return (async () => {
        await target.insert(table, record);
        event('create', table, record.objectId, { after: record });
      })();
    },

    update(table, objectId, ops, updatedAt) {
      if (!scope.observers.active) return target.update(table, objectId, ops, updatedAt);
      return (async () => {
        const images = await updateWithBefore(target, scope.inTransaction, table, objectId, ops, updatedAt);
        if (images === null) return null;
        event('update', table, objectId, images);
        return images.after;
      })();
    },

    async updateReturningBefore(table, objectId, ops, updatedAt) {
      const images = await updateWithBefore(target, scope.inTransaction, table, objectId, ops, updatedAt);
      if (images !== null && scope.observers.active) event('update', table, objectId, images);
      return images;
    },

    delete(table, objectId) {
      if (!scope.observers.active) return target.delete(table, objectId);
      return (async () => {
        const before = await atomically(target, scope.inTransaction, async (tx) => {
          const record = await tx.get(table, objectId);
          return record !== null && (await tx.delete(table, objectId)) ? record : null;
        });
        if (before === null) return false;
        event('delete', table, objectId, { before });
        return true;
      })();
    },

    async transaction(work) {
      const held = new HeldEvents();
      const result = await target.transaction((tx) =>
        work(observe(tx, { ...scope, deliver: (e) => held.hold(e), inTransaction: true })),
      );
      held.release(scope.deliver);
      return result;
    },
  };
}

/** The port's native before-image when the adapter has one; otherwise a `get` and the `update` in one transaction. */
function updateWithBefore(
  target: StorageAdapter,
  inTransaction: boolean,
  table: TableRef,
  objectId: string,
  ops: readonly FieldOp[],
  updatedAt: DateValue,
): Promise<UpdateImages | null> {
  if (target.capabilities.updateReturnsBefore === true && target.updateReturningBefore) {
    return Promise.resolve(target.updateReturningBefore(table, objectId, ops, updatedAt));
  }
  return atomically(target, inTransaction, async (tx) => {
    const before = await tx.get(table, objectId);
    if (before === null) return null;
    const after = await tx.update(table, objectId, ops, updatedAt);
    return after === null ? null : { before, after };
  });
}

/** Runs a read-then-write as one unit: in the open transaction, in a new one, or (no transactions) best effort. */
async function atomically<T>(target: StorageAdapter, inTransaction: boolean, work: (tx: StorageAdapter) => Promise<T>): Promise<T> {
  if (inTransaction || !target.capabilities.transactions) return work(target);
  return target.transaction(work);
}
