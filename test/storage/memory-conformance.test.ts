import { runStorageConformance } from '../../src/storage/conformance/index.js';
import { memoryStorage } from '../../src/storage/memory/index.js';

runStorageConformance({ name: 'memory', create: () => memoryStorage() });
