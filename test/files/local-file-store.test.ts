import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localFileStore } from '../../src/files/index.js';
import { runFileStoreConformance } from '../../src/testing.js';
import { tempDir } from './helpers.js';

const temp = tempDir();
afterAll(() => temp.remove());
runFileStoreConformance('local disk', () => localFileStore({ root: temp.dir }));
runFileStoreConformance('local disk, synced', () => localFileStore({ root: join(temp.dir, 'synced'), sync: true }));

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe('local file store on disk', () => {
  const meta = { contentType: 'text/plain', filename: 'a.txt' };

  it('keeps the bytes at the key and one metadata record beside them, nothing else', async () => {
    const root = join(temp.dir, 'layout');
    const store = localFileStore({ root, clock: { now: () => 1_700_000_000_000 } });
    const info = await store.put('app/2026/11/28/aa.txt', chunks('hello'), meta);
    expect(info.lastModified).toBe(1_700_000_000_000);
    expect(readdirSync(join(root, 'app/2026/11/28')).sort()).toEqual(['aa.txt', 'aa.txt.meta.json']);
  });

  it('counts a metadata record cut short (a crash while it was written) as no file', async () => {
    const root = join(temp.dir, 'torn');
    const store = localFileStore({ root });
    const info = await store.put('app/2026/11/28/bb.txt', chunks('hello'), meta);
    const record = join(root, 'app/2026/11/28/bb.txt.meta.json');
    writeFileSync(record, JSON.stringify(info).slice(0, 20));
    const restarted = localFileStore({ root });
    expect(await restarted.stat('app/2026/11/28/bb.txt')).toBeNull();
    expect(await restarted.get('app/2026/11/28/bb.txt')).toBeNull();
    expect(await restarted.usage('app/')).toBe(0);
  });

  it('makes the folder again when it was removed behind its back', async () => {
    const root = join(temp.dir, 'removed');
    const store = localFileStore({ root });
    await store.put('app/2026/11/28/cc.txt', chunks('one'), meta);
    rmSync(join(root, 'app'), { recursive: true });
    await store.put('app/2026/11/28/dd.txt', chunks('two'), meta);
    expect(await store.stat('app/2026/11/28/dd.txt')).toMatchObject({ size: 3 });
  });

  it('answers from the records it wrote or read, and forgets a record on delete', async () => {
    const root = join(temp.dir, 'records');
    const store = localFileStore({ root });
    await store.put('app/2026/11/28/ff.txt', chunks('cached'), meta);
    rmSync(join(root, 'app/2026/11/28/ff.txt.meta.json'));
    expect(await store.stat('app/2026/11/28/ff.txt')).toMatchObject({ size: 6 }); // from memory: one process per folder
    expect(await store.delete('app/2026/11/28/ff.txt')).toBe(false); // the record file was already gone
    expect(await store.stat('app/2026/11/28/ff.txt')).toBeNull();
  });

  it('never writes over an existing file (keys are fresh: a clash is a bug, not a replace)', async () => {
    const store = localFileStore({ root: join(temp.dir, 'clash') });
    await store.put('app/2026/11/28/ee.txt', chunks('first'), meta);
    await expect(store.put('app/2026/11/28/ee.txt', chunks('second'), meta)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await store.stat('app/2026/11/28/ee.txt')).toMatchObject({ size: 5 });
  });
});
