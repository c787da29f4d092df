import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { start } from '../../src/cli/serve.js';
import { localFileStore } from '../../src/files/index.js';
import { memoryMailTransport } from '../../src/mail/index.js';
import type { ServiceOptions } from '../../src/service.js';
import { TEST_APP, type TestServer, appHeaders, startTestServer } from '../helpers/server.js';
import { FAST_SCRYPT } from '../users/users-server.js';

const dir = mkdtempSync(join(tmpdir(), 'svcbase-public-url-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const server of servers) await server.close();
  servers = [];
});

async function serve(options: Partial<ServiceOptions> = {}): Promise<TestServer> {
  const server = await startTestServer({ files: { store: localFileStore({ root: join(dir, String(Math.random()).slice(2)) }), media: false }, ...options });
  servers.push(server);
  return server;
}

/** A request with a forged Host header and forwarded headers (fetch cannot set Host; node:http can). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  const target = new URL(path, url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const FORGED = { host: 'evil.example:8443', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' };

describe('issue 35 item 8: urls the service hands out never come from a request header', () => {
  it('issue 35 item 8: an upload with a forged Host answers a url on the listen address, not the Host', async () => {
    const server = await serve();
    const res = await send(server.url, 'POST', '/2/files/a.txt', { ...appHeaders(), ...FORGED }, 'hello');
    expect(res.status).toBe(200);
    expect(res.body.url.startsWith(`${server.url}/files/`)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('evil.example');
    // The url it answers serves the file.
    expect(await (await fetch(res.body.url)).text()).toBe('hello');
  });

  it('issue 35 item 8: the service publicUrl is the base of uploads, Location headers and mailed links; an application may name its own', async () => {
    const mail = memoryMailTransport();
    const other = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master', publicUrl: 'https://other.example.com/' };
    const server = await serve({ publicUrl: 'https://api.example.com/base', applications: [TEST_APP, other], mail, users: { scrypt: FAST_SCRYPT } });
    const upload = await send(server.url, 'POST', '/2/files/a.txt', { ...appHeaders(), ...FORGED }, 'hello');
    expect(upload.body.url).toMatch(/^https:\/\/api\.example\.com\/base\/files\/test_app\/\d{4}\/\d\d\/\d\d\/[0-9a-f]{32}\.txt$/);
    const created = await send(server.url, 'POST', '/1/classes/Post', { ...appHeaders(), ...FORGED, 'content-type': 'application/json' }, '{"title":"x"}');
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`https://api.example.com/base/1/classes/Post/${created.body.objectId}`);
    const otherUpload = await send(server.url, 'POST', '/2/files/b.txt', { ...appHeaders(other), ...FORGED }, 'hi');
    expect(otherUpload.body.url.startsWith('https://other.example.com/files/')).toBe(true);
    // Mailed links: the same base (users.linkBaseUrl is not set).
    const user = await send(server.url, 'POST', '/1/users', { ...appHeaders(), ...FORGED, 'content-type': 'application/json' }, '{"username":"ann","password":"pw","email":"ann@example.com"}');
    expect(user.status).toBe(201);
    expect(user.headers.location).toBe(`https://api.example.com/base/1/users/${user.body.objectId}`);
    const reset = await send(server.url, 'POST', '/1/requestPasswordReset', { ...appHeaders(), ...FORGED, 'content-type': 'application/json' }, '{"email":"ann@example.com"}');
    expect(reset.body).toEqual({ msg: 'ok' });
    expect(mail.messages.at(-1)?.text).toMatch(/https:\/\/api\.example\.com\/base\/1\/resetPassword\?token=[0-9a-f]{64}/);
    expect(mail.messages.map((m) => m.text).join('')).not.toContain('evil.example');
  });

  it('issue 35 item 8: a public URL with a query, or not http(s), refuses to start', async () => {
    await expect(serve({ publicUrl: 'api.example.com' })).rejects.toThrow(/publicUrl/);
    await expect(serve({ publicUrl: 'https://api.example.com/?x=1' })).rejects.toThrow(/publicUrl/);
    await expect(serve({ applications: [{ ...TEST_APP, publicUrl: 'ftp://files.example.com' }] })).rejects.toThrow(/publicUrl/);
  });

  it('issue 35 item 8: the quick start hands out uploads under SVC_PUBLIC_URL', async () => {
    const server = await start({ port: 0, host: '127.0.0.1', quiet: true, dbFile: join(dir, 'quick.db'), functionsDir: join(dir, 'none'), env: { SVC_PUBLIC_URL: 'https://quick.example.com' } });
    servers.push(server);
    const headers = { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-REST-API-Key': 'dev-rest-key' };
    const res = await send(server.url, 'POST', '/2/files/a.txt', { ...headers, ...FORGED }, 'hello');
    expect(res.status).toBe(200);
    expect(res.body.url.startsWith('https://quick.example.com/files/')).toBe(true);
  });
});
