import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { runStorageConformance } from '../../src/storage/conformance/index.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';

runStorageConformance({ name: 'sqlite :memory:', create: () => openSqlite(':memory:') });

const dir = mkdtempSync(join(tmpdir(), 'svcbase-sqlite-'));
let files = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));
runStorageConformance({ name: 'sqlite file', create: () => openSqlite(join(dir, `conformance-${++files}.db`)) });
