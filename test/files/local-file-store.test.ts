import { afterAll } from 'vitest';
import { localFileStore } from '../../src/files/index.js';
import { runFileStoreConformance } from '../../src/testing.js';
import { tempDir } from './helpers.js';

const temp = tempDir();
afterAll(() => temp.remove());
runFileStoreConformance('local disk', () => localFileStore({ root: temp.dir }));
