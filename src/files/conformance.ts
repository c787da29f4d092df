import { describe, expect } from 'vitest';
import { type OptOuts, contractCase } from '../storage/conformance/opt-out.js';
import type { Awaitable } from '../storage/port.js';
import type { FileStore } from './file-store.js';

type FileStoreCase = (make: () => Awaitable<FileStore>) => Promise<void>;

const bytes = (text: string) => new TextEncoder().encode(text);
async function* chunks(...parts: Array<string | Uint8Array>): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === 'string' ? bytes(part) : part;
}
async function readAll(body: AsyncIterable<Uint8Array>): Promise<string> {
  const out: Uint8Array[] = [];
  for await (const chunk of body) out.push(chunk);
  return Buffer.concat(out).toString('utf8');
}
let counter = 0;
/** A fresh key per case, shaped like the core's keys. */
const freshKey = (ns = 'conf') => `${ns}/2026/01/02/${(Date.now().toString(16) + (counter++).toString(16)).padStart(32, '0')}.txt`;

/** The FileStore contract: put/get/stat/delete round trips, ranges, failed puts, usage by prefix. */
const FILE_STORE_CASES = {
  'put then get returns the bytes and the metadata': async (make) => {
    const store = await make();
    const key = freshKey();
    const info = await store.put(key, chunks('hello ', 'world'), { contentType: 'text/plain', filename: 'hi.txt' });
    expect(info).toMatchObject({ key, size: 11, contentType: 'text/plain', filename: 'hi.txt' });
    expect(info.etag).toMatch(/^"[^"]+"$/);
    expect(info.lastModified).toBeGreaterThan(0);
    const read = await store.get(key);
    expect(read?.info).toMatchObject({ key, size: 11, contentType: 'text/plain', filename: 'hi.txt', etag: info.etag });
    expect(await readAll(read!.body)).toBe('hello world');
    expect(await store.stat(key)).toMatchObject({ size: 11, etag: info.etag });
  },
  'get with a range yields exactly those bytes': async (make) => {
    const store = await make();
    const key = freshKey();
    await store.put(key, chunks('0123456789'), { contentType: 'text/plain', filename: 'd.txt' });
    expect(await readAll((await store.get(key, { start: 2, end: 5 }))!.body)).toBe('2345');
    expect(await readAll((await store.get(key, { start: 9, end: 9 }))!.body)).toBe('9');
  },
  'unknown keys: get and stat return null, delete returns false': async (make) => {
    const store = await make();
    const key = freshKey();
    expect(await store.get(key)).toBeNull();
    expect(await store.stat(key)).toBeNull();
    expect(await store.delete(key)).toBe(false);
  },
  'delete removes the file once': async (make) => {
    const store = await make();
    const key = freshKey();
    await store.put(key, chunks('x'), { contentType: 'text/plain', filename: 'x.txt' });
    expect(await store.delete(key)).toBe(true);
    expect(await store.get(key)).toBeNull();
    expect(await store.delete(key)).toBe(false);
  },
  'a body that fails part-way leaves nothing under the key and the error propagates': async (make) => {
    const store = await make();
    const key = freshKey();
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield bytes('partial');
      throw new Error('client went away');
    }
    await expect(store.put(key, failing(), { contentType: 'text/plain', filename: 'f.txt' })).rejects.toThrow('client went away');
    expect(await store.stat(key)).toBeNull();
    expect(await store.get(key)).toBeNull();
  },
  'an empty file and a large multi-chunk file round-trip': async (make) => {
    const store = await make();
    const empty = freshKey();
    expect((await store.put(empty, chunks(), { contentType: 'text/plain', filename: 'e.txt' })).size).toBe(0);
    expect(await readAll((await store.get(empty))!.body)).toBe('');
    const big = freshKey();
    const block = new Uint8Array(1024 * 1024).fill(97);
    const info = await store.put(big, chunks(...Array.from({ length: 12 }, () => block)), { contentType: 'text/plain', filename: 'b.txt' });
    expect(info.size).toBe(12 * 1024 * 1024);
    let size = 0;
    for await (const chunk of (await store.get(big))!.body) size += chunk.length;
    expect(size).toBe(12 * 1024 * 1024);
  },
  'usage sums the sizes under a prefix only': async (make) => {
    const store = await make();
    const ns = `u${Date.now().toString(36)}${counter++}`;
    await store.put(freshKey(ns), chunks('abc'), { contentType: 'text/plain', filename: 'a.txt' });
    await store.put(freshKey(ns), chunks('defgh'), { contentType: 'text/plain', filename: 'b.txt' });
    await store.put(freshKey(`${ns}x`), chunks('zzzzzzz'), { contentType: 'text/plain', filename: 'c.txt' });
    expect(await store.usage(`${ns}/`)).toBe(8);
  },
  'list pages the files under a prefix in key order': async (make) => {
    const store = await make();
    if (!store.list) return;
    const ns = `l${Date.now().toString(36)}${counter++}`;
    const keys: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const key = freshKey(ns);
      keys.push(key);
      await store.put(key, chunks(name), { contentType: 'text/plain', filename: `${name}.txt` });
    }
    await store.put(freshKey(`${ns}x`), chunks('other'), { contentType: 'text/plain', filename: 'o.txt' });
    keys.sort();
    const first = await store.list(`${ns}/`, '', 2);
    expect(first.map((info) => info.key)).toEqual(keys.slice(0, 2));
    expect(first[0]).toMatchObject({ size: 1, contentType: 'text/plain' });
    const rest = await store.list(`${ns}/`, first[1]!.key, 2);
    expect(rest.map((info) => info.key)).toEqual(keys.slice(2));
  },
  'metadata keeps non-ASCII file names and content types with parameters': async (make) => {
    const store = await make();
    const key = freshKey();
    await store.put(key, chunks('x'), { contentType: 'text/plain; charset=utf-8', filename: '中文 "名".txt' });
    expect(await store.stat(key)).toMatchObject({ contentType: 'text/plain; charset=utf-8', filename: '中文 "名".txt' });
  },
} satisfies Record<string, FileStoreCase>;

export type FileStoreCaseName = keyof typeof FILE_STORE_CASES;

export interface FileStoreConformanceOptions {
  /** Cases this store opts out of, each with its reason (reported as skipped). */
  readonly skip?: OptOuts<FileStoreCaseName>;
}

/**
 * Runs the FileStore contract under vitest against stores from `make` (one per case; they may share
 * a folder or bucket: every case uses fresh keys). The suite never closes a store.
 *
 * @example
 * import { runFileStoreConformance } from 'svcbase/testing';
 * runFileStoreConformance('my store', () => myFileStore());
 */
export function runFileStoreConformance(name: string, make: () => Awaitable<FileStore>, options: FileStoreConformanceOptions = {}): void {
  describe(`FileStore contract: ${name}`, () => {
    for (const [caseName, run] of Object.entries(FILE_STORE_CASES) as Array<[FileStoreCaseName, FileStoreCase]>) {
      contractCase(caseName, options.skip?.[caseName], () => run(make));
    }
  });
}
