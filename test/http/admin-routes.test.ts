import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { localFileStore } from '../../src/files/local-file-store.js';
import type { FileStore } from '../../src/files/file-store.js';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';
import { TEST_APP, startTestServer } from '../helpers/server.js';
import { RT_APP, jsonClient, rtHeaders, startRealtimeServer, subscribe } from '../realtime/harness.js';
import { FAST_SCRYPT } from '../users/users-server.js';

/** The master-only routes behind the admin console's pages, over real HTTP. */
const dir = mkdtempSync(join(tmpdir(), 'svcbase-admin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const OTHER = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master' };

describe('GET /1/appSettings and /1/smsQuota', () => {
  it('answer the master key with the settings and the quota used, and refuse the REST key', async () => {
    const transport = memorySmsTransport();
    const server = await startTestServer({ captcha: false, sms: { transport }, applications: [{ ...TEST_APP, settings: { sms: { quota: 5 } } }] });
    try {
      expect(await server.request('GET', '/1/appSettings')).toMatchObject({ status: 403, body: { code: 11006 } });
      const settings = await server.request('GET', '/1/appSettings', { auth: 'master' });
      expect(settings.body).toMatchObject({ applicationId: TEST_APP.applicationId, settings: { sms: { quota: 5 }, timeZone: expect.any(String) } });
      expect(JSON.stringify(settings.body)).not.toContain(TEST_APP.masterKey);
      expect((await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: '13800138000' } })).status).toBe(200);
      expect((await server.request('GET', '/1/smsQuota', { auth: 'master' })).body).toEqual({ used: 1, remaining: 4 });
      expect(await server.request('GET', '/1/smsQuota')).toMatchObject({ status: 403, body: { code: 11006 } });
    } finally {
      await server.close();
    }
  });
});

describe('GET /1/realtime/connections', () => {
  it("lists this instance's connections of the application with their subscriptions", async () => {
    const server = await startRealtimeServer({ applications: [RT_APP, { ...OTHER, settings: { features: { realtime: true } } }] });
    try {
      const client = await jsonClient(server);
      await subscribe(client, { id: 'posts', action: 'updateTable', tableName: 'Post' });
      const other = await jsonClient(server, { 'X-Svc-Application-Id': OTHER.applicationId, 'X-Svc-REST-API-Key': OTHER.restApiKey });
      const listed = await server.request('GET', '/1/realtime/connections', { auth: 'master' });
      expect(listed.body).toEqual({ count: 1, results: [{ user: null, master: false, subscriptions: [{ id: 'posts', table: 'Post', action: 'updateTable' }] }] });
      expect((await fetch(`${server.url}/1/realtime/connections`, { headers: rtHeaders() })).status).toBe(403);
      client.ws.close();
      other.ws.close();
    } finally {
      await server.close();
    }
  });
});

describe('GET /1/files', () => {
  it("pages the application's files in key order, never another application's", async () => {
    const server = await startTestServer({ captcha: false, files: { store: localFileStore({ root: join(dir, 'files') }) }, applications: [TEST_APP, OTHER] });
    try {
      const upload = (name: string, app = TEST_APP) =>
        fetch(`${server.url}/2/files/${name}`, { method: 'POST', headers: { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey, 'content-type': 'text/plain' }, body: name });
      for (const name of ['a.txt', 'b.txt', 'c.txt']) expect((await upload(name)).status).toBe(200);
      expect((await upload('theirs.txt', OTHER)).status).toBe(200);
      const first = await server.request('GET', '/1/files?limit=2', { auth: 'master' });
      expect(first.status).toBe(200);
      expect(first.body.results).toHaveLength(2);
      expect(first.body.results[0]).toMatchObject({ filename: expect.stringMatching(/^[abc]\.txt$/), size: 5, contentType: 'text/plain; charset=utf-8', url: expect.stringContaining('/files/') });
      // fix 39.6: times as every other route shows them, not ISO.
      expect(first.body.results[0].lastModified).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
      const rest = await server.request('GET', `/1/files?limit=2&after=${encodeURIComponent(first.body.next)}`, { auth: 'master' });
      expect(rest.body.next).toBeNull();
      const names = [...first.body.results, ...rest.body.results].map((file: { filename: string }) => file.filename).sort();
      expect(names).toEqual(['a.txt', 'b.txt', 'c.txt']);
      expect((await server.request('GET', '/1/files?limit=0', { auth: 'master' })).body.code).toBe(11005);
      expect(await server.request('GET', '/1/files')).toMatchObject({ status: 403, body: { code: 11006 } });
    } finally {
      await server.close();
    }
  });

  it('answers 11212 when the store cannot list', async () => {
    const local = localFileStore({ root: join(dir, 'nolist') });
    const store: FileStore = { name: 'plain', put: local.put, get: local.get, stat: local.stat, delete: local.delete, usage: local.usage };
    const server = await startTestServer({ captcha: false, files: { store } });
    try {
      expect((await server.request('GET', '/1/files', { auth: 'master' })).body.code).toBe(11212);
    } finally {
      await server.close();
    }
  });
});

describe('DELETE /1/users/:objectId/sessions', () => {
  it('signs a user out everywhere with the master key only', async () => {
    const server = await startTestServer({ captcha: false, users: { scrypt: FAST_SCRYPT } });
    try {
      const signed = await server.request('POST', '/1/users', { body: { username: 'ann', password: 'secret-1' } });
      const second = await server.request('POST', '/1/login', { body: { username: 'ann', password: 'secret-1' } });
      const id = signed.body.objectId as string;
      expect(await server.request('DELETE', `/1/users/${id}/sessions`)).toMatchObject({ status: 403, body: { code: 11006 } });
      expect((await server.request('DELETE', `/1/users/${id}/sessions`, { auth: 'master' })).body).toEqual({ revoked: 2 });
      for (const token of [signed.body.sessionToken, second.body.sessionToken]) {
        const me = await server.request('GET', '/1/users/me', { headers: { 'X-Svc-Session-Token': token } });
        expect(me.body.code).toBe(211);
      }
      expect((await server.request('DELETE', `/1/users/${encodeURIComponent("x'--")}/sessions`, { auth: 'master' })).body.code).toBe(101);
    } finally {
      await server.close();
    }
  });
});
