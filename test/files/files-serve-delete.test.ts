import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationConfig } from '../../src/app/application.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { type FilesServer, type UploadBody, json, startFilesServer } from './helpers.js';

const OTHER: ApplicationConfig = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master' };

describe('serving and deleting files', () => {
  let server: FilesServer;
  const upload = (name: string, body: UploadBody, app = TEST_APP) =>
    fetch(`${server.url}/2/files/${name}`, { method: 'POST', headers: appHeaders(app), body }).then(json);
  beforeAll(async () => {
    server = await startFilesServer({}, { applications: [TEST_APP, OTHER] });
  });
  afterAll(() => server.close());

  it('streams a file past 1 MiB whole and in ranges, with its length', async () => {
    const big = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => (i * 7) % 256);
    const { url } = await upload('big.bin', big);
    const whole = await fetch(url);
    expect([whole.status, whole.headers.get('content-length')]).toEqual([200, String(big.length)]);
    expect(Buffer.compare(Buffer.from(await whole.arrayBuffer()), Buffer.from(big))).toBe(0);
    const part = await fetch(url, { headers: { range: 'bytes=1000-2100000' } });
    expect([part.status, part.headers.get('content-range'), part.headers.get('content-length')]).toEqual([206, `bytes 1000-2100000/${big.length}`, '2099001']);
    expect(Buffer.compare(Buffer.from(await part.arrayBuffer()), Buffer.from(big.subarray(1000, 2100001)))).toBe(0);
  });

  it('answers Range, HEAD, ETag and Last-Modified', async () => {
    const { url } = await upload('digits.txt', '0123456789');
    const part = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await part.text()).toBe('2345');
    expect(await (await fetch(url, { headers: { range: 'bytes=-3' } })).text()).toBe('789');
    const bad = await fetch(url, { headers: { range: 'bytes=20-' } });
    expect(bad.status).toBe(416);
    expect(bad.headers.get('content-range')).toBe('bytes */10');

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('10');
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    const etag = head.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await fetch(url, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'if-modified-since': head.headers.get('last-modified')! } })).status).toBe(304);
    expect(head.headers.get('content-disposition')).toBe(`inline; filename="digits.txt"; filename*=UTF-8''digits.txt`);
  });

  it('serves HTML and SVG as attachments with nosniff and a sandbox CSP', async () => {
    for (const [name, body, type] of [
      ['page.html', '<html><script>alert(1)</script></html>', 'text/html; charset=utf-8'],
      ['pic.svg', '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>', 'image/svg+xml'],
      ['disguised.txt', '<script>alert(1)</script>', 'text/html'],
    ] as const) {
      const { url } = await upload(name, body);
      const res = await fetch(url);
      expect(res.headers.get('content-type'), name).toBe(type);
      expect(res.headers.get('content-disposition'), name).toMatch(/^attachment; /);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toContain('sandbox');
    }
  });

  it('deletes through the SDK path with its double slash, once', async () => {
    const { url } = await upload('d.txt', 'bye');
    const path = new URL(url).pathname;
    const del = () => fetch(`${server.url}/2/files/upyun/${path}`, { method: 'DELETE', headers: appHeaders(TEST_APP) }).then(async (r) => ({ status: r.status, body: await json(r) }));
    expect(await del()).toEqual({ status: 200, body: { msg: 'ok' } });
    expect((await del()).body.code).toBe(11144);
  });

  it('only the owning application can delete', async () => {
    const { url } = await upload('mine.txt', 'mine');
    const path = new URL(url).pathname;
    const res = await fetch(`${server.url}/2/files/upyun/${path}`, { method: 'DELETE', headers: appHeaders(OTHER) }).then(json);
    expect(res.code).toBe(11144);
    const batch = await fetch(`${server.url}/2/cdnBatchDelete`, { method: 'POST', headers: { ...appHeaders(OTHER), 'content-type': 'application/json' }, body: JSON.stringify({ upyun: [url] }) }).then(json);
    expect(batch.code).toBe(11144);
    expect((await fetch(url)).status).toBe(200);
  });

  it('cdnBatchDelete: at most 50, a bad or missing path deletes nothing', async () => {
    const a = await upload('a.txt', 'a');
    const b = await upload('b.txt', 'b');
    const batch = (body: unknown) =>
      fetch(`${server.url}/2/cdnBatchDelete`, { method: 'POST', headers: { ...appHeaders(TEST_APP), 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
    expect((await batch({ upyun: Array.from({ length: 51 }, () => a.url) })).code).toBe(11147);
    expect((await batch({ upyun: [] })).code).toBe(11147);
    expect((await batch({ upyun: [a.url, '../../etc/passwd'] })).code).toBe(11151);
    const missing = await batch({ upyun: [a.url, a.url.replace(/[0-9a-f]{32}/, '0'.repeat(32))] });
    expect(missing).toMatchObject({ code: 11144, fail: { upyun: [expect.stringContaining('0'.repeat(32))] } });
    expect((await fetch(a.url)).status).toBe(200);
    expect((await batch({ upyun: 'nope' })).code).toBeDefined();
    const path = (u: string) => new URL(u).pathname.split('/').slice(-4).join('/');
    expect(await batch({ upyun: [path(a.url), `/${path(b.url)}`] })).toEqual({ msg: 'ok' });
    expect((await fetch(a.url)).status).toBe(404);
    expect((await fetch(b.url)).status).toBe(404);
  });

  it('answers 404 for malformed or foreign serve paths', async () => {
    expect((await fetch(`${server.url}/files/nope/2026/01/01/${'a'.repeat(32)}.txt`)).status).toBe(404);
    expect((await fetch(`${server.url}/files/test_app/2026/01/01/..%2F..%2Fx`)).status).toBe(404);
  });
});
