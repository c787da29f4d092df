import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';
import { runCounterStoreConformance } from '../../src/testing.js';

runCounterStoreConformance('memory', () => memoryCounterStore());
