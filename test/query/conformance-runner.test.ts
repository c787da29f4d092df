import { describe } from 'vitest';
import { runQueryConformance } from '../../src/storage/conformance/query/index.js';
import { memoryStorage } from '../../src/storage/memory/index.js';

/** The published runner seeds through the adapter port and registers one test per case. */
describe('runQueryConformance on the reference adapter', () => runQueryConformance(() => memoryStorage()));
