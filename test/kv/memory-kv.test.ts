import { memoryKvStore } from '../../src/kv/memory-kv.js';
import { kvStoreCases } from './kv-cases.js';

kvStoreCases('memory', () => memoryKvStore());
