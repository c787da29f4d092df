import { ExclusiveGate } from '../../core/exclusive-gate.js';
import type { Awaitable, StorageAdapter, StorageCapabilities } from '../port.js';
import { type OperationRunner, adapterShell } from './adapter-shell.js';
import type { RecordBackend, RecordBackendTraits } from './record-backend.js';
import { RecordCore } from './record-core.js';

export interface CreateStorageAdapterOptions {
  /** The adapter's name in logs and errors. */
  readonly name: string;
  readonly backend: RecordBackend;
  /** What the backend promises beyond the interface (see `RecordBackendTraits`). */
  readonly traits?: RecordBackendTraits;
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
  const core = new RecordCore(backend, name, options.queryBudgetMs ?? 5000, options.traits ?? {});
  const gate = new ExclusiveGate();
  // Inside a transaction (which holds the gate), `tx` queues its calls behind each other.
  const tx: StorageAdapter = adapterShell({
    name,
    capabilities: CAPABILITIES,
    operations: core,
    run: inOrder(),
    transaction: (work) => core.journal.atomically(() => work(tx)),
    close: () => undefined,
  });
  return adapterShell({
    name,
    capabilities: CAPABILITIES,
    operations: core,
    run: (op) => gate.exclusive(async () => op()),
    transaction: (work) => gate.exclusive(() => core.journal.atomically(() => work(tx))),
    close: () => gate.exclusive(async () => backend.close?.()),
  });
}

/** A runner that starts each call after the previous one settled. */
function inOrder(): OperationRunner {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(op: () => Awaitable<T>): Promise<T> => {
    const result = tail.then(op);
    tail = result.catch(() => undefined);
    return result;
  };
}
