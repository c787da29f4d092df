import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { s3FileStore } from '../../src/files/index.js';
import type { FileStore } from '../../src/files/index.js';
import { runFileStoreConformance } from '../../src/testing.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { type FilesServer, json, startFilesServer, tempDir } from './helpers.js';

// s3rver: a local S3-compatible server from npm, started here on loopback (no network, no Docker).
const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const S3rver: any = require('s3rver');

const temp = tempDir();
const bucket = 'svcbase-test';
let s3: { close(): Promise<void> } | undefined;
let endpoint = '';
beforeAll(async () => {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: temp.dir, configureBuckets: [{ name: bucket }] });
  const address = await server.run();
  endpoint = `http://127.0.0.1:${address.port}`;
  s3 = server;
});
afterAll(async () => {
  await s3?.close();
  temp.remove();
});

const make = (extra: Record<string, unknown> = {}): FileStore =>
  s3FileStore({ endpoint, bucket, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', partBytes: 5 * 1024 * 1024, ...extra });

runFileStoreConformance('S3 (aws4fetch) against s3rver', () => make());

describe('S3 store behind the files routes', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer({ store: make() });
  });
  afterAll(() => server.close());

  it('uploads, serves with Range, deletes', async () => {
    const ref = await fetch(`${server.url}/2/files/s3.txt`, { method: 'POST', headers: appHeaders(TEST_APP), body: 'stored in s3' }).then(json);
    expect(ref.url).toContain('/files/test_app/');
    const part = await fetch(ref.url, { headers: { range: 'bytes=10-11' } });
    expect(part.status).toBe(206);
    expect(await part.text()).toBe('s3');
    const path = new URL(ref.url).pathname;
    expect(await fetch(`${server.url}/2/files/upyun/${path}`, { method: 'DELETE', headers: appHeaders(TEST_APP) }).then(json)).toEqual({ msg: 'ok' });
    expect((await fetch(ref.url)).status).toBe(404);
  });

  it('answers the public bucket url when configured, and it serves the bytes', async () => {
    const store = make({ publicBaseUrl: `${endpoint}/${bucket}` });
    const info = await store.put('pub/2026/01/01/' + 'b'.repeat(32) + '.txt', (async function* () { yield new TextEncoder().encode('public'); })(), { contentType: 'text/plain', filename: 'p.txt' });
    const url = await store.publicUrl!(info.key);
    expect(url).toBe(`${endpoint}/${bucket}/pub/2026/01/01/${'b'.repeat(32)}.txt`);
    expect(await (await fetch(url)).text()).toBe('public');
    const presigned = await make({ presignSeconds: 60 }).publicUrl!(info.key);
    expect(presigned).toContain('X-Amz-Signature=');
    expect(await (await fetch(presigned)).text()).toBe('public');
  });
});
