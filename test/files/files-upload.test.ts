import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { type FilesServer, type UploadBody, json, md5, now, signedHeaders, startFilesServer } from './helpers.js';

const code = TEST_APP.securityCode!;
const nonce = 'AbCdEfGhIjKlMnOp';
const std = (route: string, ts: string, body: string) => md5(route + ts + code + nonce + body + '10');
const legacy = (route: string, ts: string) => md5(route + ts + code + nonce);

/** Every file the store holds (meta files excluded). */
function storedFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /[0-9a-f]{32}(\.\w+)?$/.test(f));
}

describe('uploads: every signature variant of sdk-wire §2.6', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer();
  });
  afterAll(() => server.close());

  const post = (path: string, headers: Record<string, string>, body: UploadBody) =>
    fetch(server.url + path, { method: 'POST', headers, body }).then(async (r) => ({ status: r.status, body: await json(r) }));

  it('raw body signed over its own text (standard formula)', async () => {
    const ts = now();
    const res = await post('/2/files/raw.txt', signedHeaders(std('/2/files/raw.txt', ts, 'raw text'), ts, nonce, { 'X-Bmob-SDK-Version': '10' }), 'raw text');
    expect(res).toMatchObject({ status: 200, body: { filename: 'raw.txt', cdn: 'upyun' } });
  });

  it('a browser File signed over {} (binary body)', async () => {
    const ts = now();
    const res = await post('/2/files/pic.png', signedHeaders(std('/2/files/pic.png', ts, '{}'), ts, nonce, { 'X-Bmob-SDK-Version': '10' }), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]));
    expect(res.status).toBe(200);
  });

  it('signed over an empty body (D47) and with a percent-encoded name signed decoded', async () => {
    const ts = now();
    const res = await post('/2/files/hello%20world.txt', signedHeaders(std('/2/files/hello world.txt', ts, ''), ts, nonce, { 'X-Bmob-SDK-Version': '10' }), 'x');
    expect(res).toMatchObject({ status: 200, body: { filename: 'hello world.txt' } });
  });

  it('a Node string signed over its JSON quoting (the §2.4 vector form)', async () => {
    const ts = now();
    const res = await post('/2/files/q.txt', signedHeaders(std('/2/files/q.txt', ts, JSON.stringify('say "hi"\n')), ts, nonce, { 'X-Bmob-SDK-Version': '10' }), 'say "hi"\n');
    expect(res.status).toBe(200);
  });

  it('mini-program multipart: legacy formula in headers, auth repeated as form fields, no SDK version', async () => {
    const ts = now();
    const sign = legacy('/2/files/a.jpg', ts);
    const form = new FormData();
    for (const [k, v] of Object.entries({ _ContentType: 'text/plain', category: 'wechatApp', 'X-Bmob-Safe-Sign': sign })) form.append(k, v);
    form.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2])]), 'tmp_123.jpg');
    const res = await post('/2/files/a.jpg', { ...signedHeaders(sign, ts, nonce), 'X-Bmob-SDK-Type': 'wechatApp', 'X-Bmob-Session-Token': 'bmob' }, form);
    expect(res).toMatchObject({ status: 200, body: { filename: 'a.jpg', cdn: 'upyun' } });
    // The batch's next file reuses the first file's signature (sdk-wire §2.5).
    const form2 = new FormData();
    form2.append('file', new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 3])]), 'tmp_124.jpg');
    const second = await post('/2/files/b.jpg', { ...signedHeaders(sign, ts, nonce), 'X-Bmob-SDK-Type': 'wechatApp' }, form2);
    expect(second).toMatchObject({ status: 200, body: { filename: 'b.jpg' } });
  });

  it('quick app: credentials only as form fields', async () => {
    const ts = now();
    const form = new FormData();
    const fields = { 'X-Bmob-Safe-Sign': legacy('/2/files/q.png', ts), 'X-Bmob-Safe-Timestamp': ts, 'X-Bmob-Noncestr-Key': nonce, 'X-Bmob-Secret-Key': TEST_APP.secretKey!, 'X-Bmob-Session-Token': 'bmob' };
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])]), 'q.png');
    const res = await post('/2/files/q.png', { 'X-Bmob-SDK-Type': 'wechatApp' }, form);
    expect(res).toMatchObject({ status: 200, body: { filename: 'q.png' } });
  });

  it('several files in one multipart request answer a list; REST keys work too', async () => {
    const form = new FormData();
    form.append('file', new Blob(['one']), 'ignored.txt');
    form.append('file', new Blob(['two']), 'second.txt');
    form.append('file', new Blob(['three']), 'third.txt');
    const res = await post('/2/files/first.txt', appHeaders(TEST_APP), form);
    expect(res.status).toBe(200);
    expect(res.body.map((f: { filename: string }) => f.filename)).toEqual(['first.txt', 'second.txt', 'third.txt']);
    const texts = await Promise.all(res.body.map((f: { url: string }) => fetch(f.url).then((r) => r.text())));
    expect(texts).toEqual(['one', 'two', 'three']);
  });

  it('refuses wrong signatures, stale timestamps, a legacy signature of another route, storing nothing', async () => {
    const before = storedFiles(server.dir).length;
    const ts = now();
    const cases = [
      signedHeaders(std('/2/files/x.txt', ts, 'other'), ts, nonce, { 'X-Bmob-SDK-Version': '10' }),
      signedHeaders(legacy('/2/files/y.txt', ts), ts, 'ZZZZZZZZZZZZZZZZ'),
      signedHeaders(std('/2/files/x.txt', String(Number(ts) - 60), ''), String(Number(ts) - 60), nonce, { 'X-Bmob-SDK-Version': '10' }),
      { 'X-Bmob-Secret-Key': TEST_APP.secretKey! },
      {},
      { ...appHeaders(TEST_APP), 'X-Svc-REST-API-Key': 'wrong' },
    ];
    for (const headers of cases) {
      const res = await post('/2/files/x.txt', headers, 'payload');
      expect(res.status, JSON.stringify(headers)).toBe(401);
    }
    // Multipart whose form-field signature is wrong: refused before the file part is stored.
    const form = new FormData();
    form.append('X-Bmob-Safe-Sign', '0'.repeat(32));
    form.append('X-Bmob-Safe-Timestamp', ts);
    form.append('X-Bmob-Noncestr-Key', nonce);
    form.append('X-Bmob-Secret-Key', TEST_APP.secretKey!);
    form.append('file', new Blob(['evil']), 'e.txt');
    expect((await post('/2/files/e.txt', {}, form)).status).toBe(401);
    expect(storedFiles(server.dir).length).toBe(before);
  });
});

describe('uploads: names, types, sizes, quota', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer({ limits: { maxFileBytes: 1000, quotaBytes: 3000, allowedTypes: ['image/*', 'text/plain'], maxFilesPerRequest: 3 } });
  });
  afterAll(() => server.close());

  const upload = (name: string, body: UploadBody) =>
    fetch(`${server.url}/2/files/${name}`, { method: 'POST', headers: appHeaders(TEST_APP), body }).then(async (r) => ({ status: r.status, body: await json(r) }));

  it('refuses traversal, control characters and empty names (11143)', async () => {
    // ('..' itself never reaches a server through fetch: URL parsing removes dot segments; see file-names.test.ts.)
    for (const name of ['..%2F..%2Fetc%2Fpasswd', 'a%5Cb.txt', 'bad%0Aname.txt', 'nul%00.txt', '%E2%80%AEgnp.txt']) {
      const res = await upload(name, 'x');
      expect(res.body.code, name).toBe(11143);
    }
    expect(storedFiles(server.dir)).toEqual([]);
  });

  it('refuses a file over the size limit (11140) and stores nothing', async () => {
    const res = await upload('big.txt', 'x'.repeat(1001));
    expect(res).toMatchObject({ status: 413, body: { code: 11140 } });
    expect(storedFiles(server.dir)).toEqual([]);
    expect((await upload('fits.txt', 'x'.repeat(1000))).status).toBe(200);
  });

  it('refuses types not allowed by name (11142) or by content (11146)', async () => {
    expect((await upload('page.html', '<p>hi</p>')).body.code).toBe(11142);
    expect((await upload('sneaky.txt', '<html><script>alert(1)</script>')).body.code).toBe(11146);
    expect((await upload('img.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))).status).toBe(200);
  });

  it('holds the quota under parallel uploads: exactly the uploads that fit succeed', async () => {
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => upload(`p${i}.txt`, 'y'.repeat(500))));
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.body.code === 11141).length;
    expect(ok + refused).toBe(12);
    // 1000 bytes (fits.txt) and 8 bytes (img.png) were already stored: 1992 left, 3 files of 500 fit.
    expect(ok).toBe(3);
    const total = storedFiles(server.dir).length;
    expect(total).toBe(2 + 3);
  });

  it('refuses more files than allowed in one request, keeping none of them', async () => {
    const before = storedFiles(server.dir).length;
    const form = new FormData();
    for (let i = 0; i < 4; i++) form.append('file', new Blob(['z']), `f${i}.txt`);
    const res = await fetch(`${server.url}/2/files/f.txt`, { method: 'POST', headers: appHeaders(TEST_APP), body: form }).then(json);
    expect(res.code).toBe(11145);
    expect(storedFiles(server.dir).length).toBe(before);
  });
});
