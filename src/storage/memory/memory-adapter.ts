import type { StorageAdapter, StorageCapabilities } from '../port.js';
import { adapterShell } from '../kit/adapter-shell.js';
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
  // Inside a transaction (which holds the gate), `tx` calls the store directly.
  const tx: StorageAdapter = adapterShell({
    name,
    capabilities: CAPABILITIES,
    operations: store,
    transaction: (work) => savepoint(state, () => work(tx)),
    close: () => {},
  });
  return adapterShell({
    name,
    capabilities: CAPABILITIES,
    operations: store,
    run: (op) => gate.run(op) as ReturnType<typeof op>,
    transaction: (work) => gate.exclusive(() => savepoint(state, () => work(tx))),
    close: () => gate.run(() => state.clear()),
  });
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
