export { type MemoryStorageOptions, memoryStorage } from './memory-adapter.js';
export { ExclusiveGate } from '../../core/exclusive-gate.js';
