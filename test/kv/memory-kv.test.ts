import { memoryKvStore } from '../../src/kv/memory-kv.js';
import { runKvStoreConformance } from '../../src/testing.js';

runKvStoreConformance('memory', () => memoryKvStore());
