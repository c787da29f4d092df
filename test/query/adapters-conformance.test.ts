import { describe } from 'vitest';
import { runQueryConformance } from '../../src/query/conformance.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';

/** The published query suite against the built-in adapters (the storage kit runs it too). */
describe('memory adapter', () => runQueryConformance(() => memoryStorage()));
describe('sqlite adapter', () => runQueryConformance(() => openSqlite(':memory:')));
