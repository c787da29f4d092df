import type { FieldOp, StorageAdapter, StorageCapabilities, TableRef, UpdateImages } from '../port.js';
import type { DateValue } from '../../core/values.js';
import { ExclusiveGate } from '../../core/exclusive-gate.js';
import { type MemoryState, restoreState, snapshotState } from './memory-state.js';
import { MemoryStore } from './memory-store.js';

export interface MemoryStorageOptions {
  /** Adapter name in logs (default `memory`). */
  readonly name?: string;
  /** Budget of a read whose caller names none, in ms (default 5000); a scan past its budget throws 11090. */
  readonly queryBudgetMs?: number;
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ transactions: true, updateReturnsBefore: true });

/**
 * Storage in process memory: the reference semantics of the storage port, used by tests and by hosts
 * that want no disk. Every operation is atomic (it runs without yielding) and returns synchronously
 * unless a transaction is open, in which case it waits for the transaction to finish. Values are
 * deep-copied in and out, so callers can never change stored state by mutating what they passed or got.
 *
 * Transactions snapshot the state and restore it when `work` throws; nested transactions are
 * savepoints. Inside `work`, use only the `tx` adapter it receives (calling the outer adapter there
 * waits for the transaction itself: a deadlock).
 *
 * @example const service = createService({ storage: memoryStorage(), ... })
 */
export function memoryStorage(options: MemoryStorageOptions = {}): StorageAdapter {
  const state: MemoryState = new Map();
  const store = new MemoryStore(state, options.queryBudgetMs ?? 5000);
  const gate = new ExclusiveGate();
  const name = options.name ?? 'memory';

  const inTransaction = (): StorageAdapter => {
    const tx: StorageAdapter = {
      name,
      capabilities: CAPABILITIES,
      getSchema: (ref) => store.getSchema(ref),
      ensureColumns: (ref, columns, limits) => store.ensureColumns(ref, columns, limits),
      createIndex: (ref, index) => store.createIndex(ref, index),
      insert: (ref, record) => store.insert(ref, record),
      get: (ref, id, projection) => store.get(ref, id, projection),
      update: (ref, id, ops, updatedAt) => store.update(ref, id, ops, updatedAt),
      updateReturningBefore: (ref, id, ops, updatedAt) => updateReturningBefore(store, ref, id, ops, updatedAt),
      delete: (ref, id) => store.delete(ref, id),
      find: (ref, plan, read) => store.find(ref, plan, read),
      count: (ref, where, read) => store.count(ref, where, read),
      aggregate: (ref, plan, read) => store.aggregate(ref, plan, read),
      transaction: (work) => savepoint(state, () => work(tx)),
      dropNamespace: (namespace) => store.dropNamespace(namespace),
      listTables: (namespace) => store.listTables(namespace),
      dropColumn: (ref, column) => store.dropColumn(ref, column),
      dropIndex: (ref, name) => store.dropIndex(ref, name),
      dropTable: (ref) => store.dropTable(ref),
      close: () => {},
    };
    return tx;
  };
  const tx = inTransaction();

  return {
    name,
    capabilities: CAPABILITIES,
    getSchema: (ref) => gate.run(() => store.getSchema(ref)),
    ensureColumns: (ref, columns, limits) => gate.run(() => store.ensureColumns(ref, columns, limits)),
    createIndex: (ref, index) => gate.run(() => store.createIndex(ref, index)),
    insert: (ref, record) => gate.run(() => store.insert(ref, record)),
    get: (ref, id, projection) => gate.run(() => store.get(ref, id, projection)),
    update: (ref, id, ops, updatedAt) => gate.run(() => store.update(ref, id, ops, updatedAt)),
    updateReturningBefore: (ref, id, ops, updatedAt) => gate.run(() => updateReturningBefore(store, ref, id, ops, updatedAt)),
    delete: (ref, id) => gate.run(() => store.delete(ref, id)),
    find: (ref, plan, read) => gate.run(() => store.find(ref, plan, read)),
    count: (ref, where, read) => gate.run(() => store.count(ref, where, read)),
    aggregate: (ref, plan, read) => gate.run(() => store.aggregate(ref, plan, read)),
    transaction: (work) => gate.exclusive(() => savepoint(state, () => work(tx))),
    dropNamespace: (namespace) => gate.run(() => store.dropNamespace(namespace)),
    listTables: (namespace) => gate.run(() => store.listTables(namespace)),
    dropColumn: (ref, column) => gate.run(() => store.dropColumn(ref, column)),
    dropIndex: (ref, name) => gate.run(() => store.dropIndex(ref, name)),
    dropTable: (ref) => gate.run(() => store.dropTable(ref)),
    close: () => gate.run(() => state.clear()),
  };
}

/** Synchronous, so the read and the update are one atomic step. */
function updateReturningBefore(store: MemoryStore, ref: TableRef, id: string, ops: readonly FieldOp[], updatedAt: DateValue): UpdateImages | null {
  const before = store.get(ref, id);
  if (before === null) return null;
  const after = store.update(ref, id, ops, updatedAt);
  return after === null ? null : { before, after };
}

async function savepoint<T>(state: MemoryState, work: () => Promise<T>): Promise<T> {
  const snapshot = snapshotState(state);
  try {
    return await work();
  } catch (error) {
    restoreState(state, snapshot);
    throw error;
  }
}
