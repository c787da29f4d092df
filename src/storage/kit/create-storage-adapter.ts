import { ExclusiveGate } from '../../core/exclusive-gate.js';
import type { StorageAdapter, StorageCapabilities } from '../port.js';
import type { RecordBackend } from './record-backend.js';
import { RecordCore } from './record-core.js';

export interface CreateStorageAdapterOptions {
  /** The adapter's name in logs and errors. */
  readonly name: string;
  readonly backend: RecordBackend;
  /** Budget of a read whose caller names none, in ms (default 5000); a scan past it throws 11090. */
  readonly queryBudgetMs?: number;
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ transactions: true, updateReturnsBefore: true });

/**
 * A complete storage adapter over a {@link RecordBackend}: the backend stores schemas, records and
 * Relation links; the factory owns everything else the port promises, exactly as the built-in
 * adapters do (schema merging and the name/limit rules, index specs and unique indexes, every field
 * operation, projections, the reference query evaluator, the update before-image, deep copies in
 * and out) and passes the storage conformance kit with no adapter code of yours.
 *
 * One call runs at a time per adapter, so every operation is atomic among this process's callers.
 * Transactions keep an undo journal (undo-journal.ts): all-or-nothing against errors, nested ones
 * are savepoints; a crash mid-transaction can leave part of it. Queries scan the table: fine for
 * thousands of records, not millions; a store with native queries implements the port directly.
 * A store shared by several processes needs its own atomicity, and so the port directly too.
 *
 * @example
 * import { createStorageAdapter } from 'svcbase/adapter-kit';
 * const storage = createStorageAdapter({ name: 'my-kv', backend: myBackend });
 */
export function createStorageAdapter(options: CreateStorageAdapterOptions): StorageAdapter {
  const { name, backend } = options;
  const core = new RecordCore(backend, name, options.queryBudgetMs ?? 5000);
  const gate = new ExclusiveGate();
  // Inside a transaction (which holds the gate), `tx` queues its calls behind each other.
  const tx = bind(name, core, inOrder(), (work) => core.journal.atomically(() => work(tx)));
  const outer = bind(name, core, (op) => gate.exclusive(op), (work) => gate.exclusive(() => core.journal.atomically(() => work(tx))));
  return { ...outer, close: () => gate.exclusive(async () => backend.close?.()) };
}

/** Runs one core call: through the gate (outside a transaction) or directly (inside one). */
type Runner = <T>(op: () => Promise<T>) => Promise<T>;

/** A runner that starts each call after the previous one settled. */
function inOrder(): Runner {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(op: () => Promise<T>): Promise<T> => {
    const result = tail.then(op);
    tail = result.catch(() => undefined);
    return result;
  };
}

function bind(name: string, core: RecordCore, run: Runner, transaction: StorageAdapter['transaction']): StorageAdapter {
  return {
    name,
    capabilities: CAPABILITIES,
    getSchema: (ref) => run(() => core.getSchema(ref)),
    ensureColumns: (ref, columns, limits) => run(() => core.ensureColumns(ref, columns, limits)),
    createIndex: (ref, index) => run(() => core.createIndex(ref, index)),
    insert: (ref, record) => run(() => core.insert(ref, record)),
    get: (ref, id, projection) => run(() => core.get(ref, id, projection)),
    update: (ref, id, ops, updatedAt) => run(() => core.update(ref, id, ops, updatedAt)),
    updateReturningBefore: (ref, id, ops, updatedAt) => run(() => core.updateReturningBefore(ref, id, ops, updatedAt)),
    delete: (ref, id) => run(() => core.delete(ref, id)),
    find: (ref, plan, read) => run(() => core.find(ref, plan, read)),
    count: (ref, where, read) => run(() => core.count(ref, where, read)),
    aggregate: (ref, plan, read) => run(() => core.aggregate(ref, plan, read)),
    transaction,
    dropNamespace: (namespace) => run(() => core.dropNamespace(namespace)),
    listTables: (namespace) => run(() => core.listTables(namespace)),
    dropColumn: (ref, column) => run(() => core.dropColumn(ref, column)),
    dropIndex: (ref, index) => run(() => core.dropIndex(ref, index)),
    dropTable: (ref) => run(() => core.dropTable(ref)),
    close: () => undefined,
  };
}
