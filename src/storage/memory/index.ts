export { type MemoryStorageOptions, memoryStorage } from './memory-adapter.js';
export { ExclusiveGate } from './exclusive-gate.js';
