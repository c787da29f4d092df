import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_APP } from '../helpers/server.js';
import { type FilesServer, startFilesServer } from './helpers.js';

// The official SDK, Node transport, signed mode: upload, set on a record, read back by url, delete.
const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const Bmob: any = require('hydrogen-js-sdk');

describe('files through hydrogen-js-sdk 2.7.3 (Node, signed)', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer();
    Bmob.initialize(TEST_APP.secretKey, TEST_APP.securityCode);
    Bmob.domain(server.url);
  });
  afterAll(() => server.close());

  it('uploads a string, stores it on a record, serves it by url, deletes it', async () => {
    const saved = await Bmob.File('hello.txt', 'hello content').save();
    expect(saved).toHaveLength(1);
    const file = saved[0];
    expect(file).toMatchObject({ cdn: 'upyun', filename: 'hello.txt' });
    expect(file.url).toMatch(new RegExp(`^${server.url}/files/test_app/\\d{4}/\\d{2}/\\d{2}/[0-9a-f]{32}\\.txt$`));

    const query = Bmob.Query('Post');
    query.set('attachment', file);
    const created = await query.save();
    const row = await Bmob.Query('Post').get(created.objectId);
    expect(row.attachment).toMatchObject({ __type: 'File', filename: 'hello.txt', url: file.url });

    const res = await fetch(row.attachment.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello content');
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');

    expect(await Bmob.File().destroy(file.url)).toEqual({ msg: 'ok' });
    expect((await fetch(file.url)).status).toBe(404);
  });

  it('uploads a Buffer (signed over its JSON form) and batch-deletes through cdnBatchDelete', async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 250]);
    const [a] = await Bmob.File('a.png', bytes).save();
    const [b] = await Bmob.File('b.txt', 'second').save();
    expect(Buffer.from(await (await fetch(a.url)).arrayBuffer())).toEqual(bytes);
    expect((await fetch(a.url)).headers.get('content-type')).toBe('image/png');
    expect(await Bmob.File().destroy([a.url, b.url])).toEqual({ msg: 'ok' });
    expect((await fetch(a.url)).status).toBe(404);
    expect((await fetch(b.url)).status).toBe(404);
  });
});
