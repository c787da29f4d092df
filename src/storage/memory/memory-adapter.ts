import type { StorageAdapter } from '../port.js';
import { createStorageAdapter } from '../kit/create-storage-adapter.js';
import { MemoryBackend } from './memory-backend.js';

export interface MemoryStorageOptions {
  /** Adapter name in logs (default `memory`). */
  readonly name?: string;
  /** Budget of a read whose caller names none, in ms (default 5000); a scan past its budget throws 11090. */
  readonly queryBudgetMs?: number;
}

/**
 * Storage in process memory: the reference semantics of the storage port, used by tests and by hosts
 * that want no disk. It is `createStorageAdapter` (the factory of `svcbase/adapter-kit`) over maps
 * (memory-backend.ts), so the adapter kit's semantics are the ones every built-in test runs against.
 * Operations run one at a time, so each is atomic; values are deep-copied in and out, so callers can
 * never change stored state by mutating what they passed or got.
 *
 * Transactions keep an undo journal and put everything back when `work` throws; nested transactions
 * are savepoints. Inside `work`, use only the `tx` adapter it receives (calling the outer adapter
 * there waits for the transaction itself: a deadlock).
 *
 * @example const service = createService({ storage: memoryStorage(), ... })
 */
export function memoryStorage(options: MemoryStorageOptions = {}): StorageAdapter {
  return createStorageAdapter({
    name: options.name ?? 'memory',
    backend: new MemoryBackend(),
    traits: { stableScans: true },
    ...(options.queryBudgetMs === undefined ? {} : { queryBudgetMs: options.queryBudgetMs }),
  });
}
