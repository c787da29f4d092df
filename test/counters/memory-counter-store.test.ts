import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';
import { counterStoreCases } from './counter-cases.js';

counterStoreCases('memory', () => memoryCounterStore());
