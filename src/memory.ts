/**
 * In-memory adapters: storage with the reference semantics, and a KvStore. For tests and for hosts
 * that want no disk.
 */
export { memoryStorage, type MemoryStorageOptions } from './storage/memory/index.js';
export { memoryKvStore } from './kv/memory-kv.js';
