import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { type StartedServer, start } from '../../src/cli/serve.js';
import { httpRestClient } from '../../src/cli/transfer/rest-client.js';
import { restSink, restSource } from '../../src/cli/transfer/rest-endpoints.js';
import { memoryState } from '../../src/cli/transfer/state.js';
import { transfer } from '../../src/cli/transfer/transfer.js';
import type { TransferSink } from '../../src/cli/transfer/endpoints.js';
import { PG_URL, type TestSchema, createTestSchema, postgresAvailable } from '../postgres/pg-test-db.js';

/**
 * `svcbase migrate`, `export` and `import` between real servers (the quick start's, on their own
 * SQLite files, over real HTTP): a populated instance is copied into an empty one with nothing lost.
 */
const dir = mkdtempSync(join(tmpdir(), 'svcbase-migrate-'));
const APP = 'dev-app-id';
const MASTER = 'dev-master-key';
const env = { PATH: process.env.PATH } as Record<string, string | undefined>;
const keys = { 'X-Svc-Application-Id': APP, 'X-Svc-Master-Key': MASTER, 'content-type': 'application/json' };
const restKeys = { 'X-Svc-Application-Id': APP, 'X-Svc-REST-API-Key': 'dev-rest-key', 'content-type': 'application/json' };

async function call(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = keys) {
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

const list = async (base: string, path: string, query: Record<string, string> = {}) =>
  (await call(base, 'GET', `${path}?${new URLSearchParams({ order: 'objectId', limit: '1000', ...query })}`)).body.results as Array<Record<string, unknown>>;

function captured() {
  let out = '';
  let err = '';
  return { io: { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env }, out: () => out, err: () => err };
}

let source: StartedServer;
const POSTS = 130;
const users: string[] = [];
let fileUrl = '';
const fileBytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...Array.from({ length: 300 }, (_, i) => i % 251)]);

beforeAll(async () => {
  source = await start({ port: 0, dbFile: join(dir, 'source.db'), quiet: true, env, functionsDir: join(dir, 'none') });
  const base = source.url;
  for (const name of ['ann', "o'brien", 'carl']) {
    const signed = await call(base, 'POST', '/1/users', { username: name, password: 'secret-1', email: `${name.replace("'", '')}@example.com` }, restKeys);
    expect(signed.status).toBe(201);
    users.push(signed.body.objectId);
  }
  const uploaded = await fetch(`${base}/2/files/logo.png`, { method: 'POST', headers: { ...restKeys, 'content-type': 'image/png' }, body: fileBytes });
  expect(uploaded.status).toBe(200);
  fileUrl = ((await uploaded.json()) as { url: string }).url;
  const role = await call(base, 'POST', '/1/roles', {
    name: 'moderators',
    ACL: { '*': { read: true } },
    users: { __op: 'AddRelation', objects: users.slice(0, 2).map((objectId) => ({ __type: 'Pointer', className: '_User', objectId })) },
  });
  expect(role.status).toBe(201);
  await call(base, 'POST', '/1/schemas/Post', { className: 'Post', fields: { score: { type: 'Number' } }, indexes: { by_score: { score: 1 } }, classLevelPermissions: { find: { '*': true }, get: { '*': true }, count: { '*': true }, create: { 'role:moderators': true }, update: { 'role:moderators': true }, delete: { 'role:moderators': true }, addField: { 'role:moderators': true } } });
  const requests = Array.from({ length: POSTS }, (_, i) => ({
    method: 'POST',
    path: '/1/classes/Post',
    body: {
      title: i % 7 === 0 ? `it's "quoted" '; DROP TABLE Post; --` : `post ${i}`,
      score: i,
      at: { __type: 'Date', iso: new Date(Date.UTC(2025, 0, 1 + (i % 28))).toISOString() },
      where: { __type: 'GeoPoint', latitude: 30 + i / 100, longitude: 120 },
      tags: ['a', i % 2 ? 'odd' : 'even'],
      meta: { n: i, nested: { deep: [i] } },
      author: { __type: 'Pointer', className: '_User', objectId: users[i % 3] },
      ...(i % 10 === 0 ? { cover: { __type: 'File', filename: 'logo.png', url: fileUrl } } : {}),
      ...(i % 5 === 0 ? { ACL: { [users[0]!]: { read: true, write: true } } } : {}),
      ...(i % 3 === 0 ? { likes: { __op: 'AddRelation', objects: users.slice(0, 1 + (i % 2)).map((objectId) => ({ __type: 'Pointer', className: '_User', objectId })) } } : {}),
    },
  }));
  for (let i = 0; i < requests.length; i += 50) {
    const batch = await call(base, 'POST', '/1/batch', { requests: requests.slice(i, i + 50) });
    expect(batch.status).toBe(200);
    expect(batch.body.every((item: { success?: unknown }) => item.success)).toBe(true);
  }
  const posts = await list(base, '/1/classes/Post');
  for (const [i, post] of posts.slice(0, 20).entries()) {
    expect((await call(base, 'POST', '/1/classes/Comment', { text: `c${i}`, post: { __type: 'Pointer', className: 'Post', objectId: post.objectId } })).status).toBe(201);
  }
});

afterAll(async () => {
  await source?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What a migrated table must equal: every record, with files compared by their bytes instead of their url. */
async function snapshot(base: string, path: string) {
  const records = await list(base, path);
  const out = [];
  for (const record of records) {
    const copy = { ...record };
    for (const [key, value] of Object.entries(copy)) {
      if (value && typeof value === 'object' && (value as { __type?: string }).__type === 'File') {
        const bytes = new Uint8Array(await (await fetch((value as { url: string }).url)).arrayBuffer());
        copy[key] = { filename: (value as { filename: string }).filename, bytes: Buffer.from(bytes).toString('base64') };
      }
    }
    out.push(copy);
  }
  return out;
}

async function relationMembers(base: string, owner: string, ownerId: string, key: string, target: string) {
  const where = JSON.stringify({ $relatedTo: { object: { __type: 'Pointer', className: owner, objectId: ownerId }, key } });
  return (await list(base, target === '_User' ? '/1/users' : `/1/classes/${target}`, { where, keys: 'objectId' })).map((r) => r.objectId);
}

async function expectSameApplication(target: string) {
  for (const path of ['/1/classes/Post', '/1/classes/Comment', '/1/users', '/1/roles']) {
    expect(await snapshot(target, path), path).toEqual(await snapshot(source.url, path));
  }
  const posts = await list(source.url, '/1/classes/Post');
  for (const post of posts.filter((_, i) => i % 9 === 0)) {
    const id = String(post.objectId);
    expect(await relationMembers(target, 'Post', id, 'likes', '_User')).toEqual(await relationMembers(source.url, 'Post', id, 'likes', '_User'));
  }
  const [role] = await list(source.url, '/1/roles');
  expect(await relationMembers(target, '_Role', String(role!.objectId), 'users', '_User')).toEqual(users.slice(0, 2).sort());
  const schema = (await call(target, 'GET', '/1/schemas/Post')).body;
  expect(schema.indexes.by_score).toEqual({ score: 1 });
  expect(schema.classLevelPermissions).toEqual((await call(source.url, 'GET', '/1/schemas/Post')).body.classLevelPermissions);
}

describe('svcbase migrate', () => {
  it('copies a populated instance into an empty one: counts, records, ACLs, relations, roles, files, schema', async () => {
    // Its own folder: uploads live beside the database file, and the source's must not show in the target's list.
    const target = await start({ port: 0, dbFile: join(dir, 'target', 'target.db'), quiet: true, env, functionsDir: join(dir, 'none') });
    try {
      const run = captured();
      const code = await runCli(['migrate', '--from', source.url, '--app', APP, '--master-key', MASTER, '--brand', 'Svc', '--to', target.url, '--to-app', APP, '--to-master-key', MASTER, '--to-brand', 'Svc', '--state', join(dir, 'state.json'), '--page-size', '40', '--json'], run.io);
      expect(run.err()).toBe('');
      expect(code).toBe(0);
      const report = JSON.parse(run.out()) as { complete: boolean; tables: Array<{ className: string; source: number; inserted: number; target: number; files: number; relationLinks: number }> };
      expect(report.complete).toBe(true);
      const byName = Object.fromEntries(report.tables.map((table) => [table.className, table]));
      expect(byName['Post']).toMatchObject({ source: POSTS, inserted: POSTS, target: POSTS, files: POSTS / 10, relationLinks: 66 });
      expect(byName['_User']).toMatchObject({ source: 3, inserted: 3, target: 3 });
      expect(byName['Comment']).toMatchObject({ source: 20, inserted: 20, target: 20 });
      expect(byName['_Role']).toMatchObject({ source: 1, inserted: 1, relationLinks: 2 });
      expect(Object.keys(byName)).not.toContain('_Session');
      await expectSameApplication(target.url);
      // A finished migration forgets its progress file.
      expect(() => rmSync(join(dir, 'state.json'))).toThrow();
      // Password hashes are not copied: a migrated user signs in after a reset (docs/cli.md).
      const login = await call(target.url, 'GET', `/1/login?${new URLSearchParams({ username: 'ann', password: 'secret-1' })}`, undefined, restKeys);
      expect(login.status).toBe(400);
      expect(login.body.code).toBe(101);
      expect((await call(target.url, 'GET', '/1/files?limit=100')).body.results).toHaveLength(1);
      // Running it again changes nothing: every id is there already.
      const again = captured();
      expect(await runCli(['migrate', '--from', source.url, '--app', APP, '--master-key', MASTER, '--brand', 'Svc', '--to', target.url, '--to-app', APP, '--to-master-key', MASTER, '--to-brand', 'Svc', '--state', join(dir, 'state2.json'), '--json'], again.io)).toBe(0);
      const second = JSON.parse(again.out()) as { tables: Array<{ className: string; inserted: number; existing: number }> };
      expect(second.tables.find((t) => t.className === 'Post')).toMatchObject({ inserted: 0, existing: POSTS, files: 0 });
      await expectSameApplication(target.url);
      // fix 39.8: nor are files uploaded again: the target stores the one file the source has.
      const stored = await call(target.url, 'GET', '/1/files?limit=100');
      expect(stored.body.results).toHaveLength(1);
    } finally {
      await target.close();
    }
  });

  it('resumes after a failure where it stopped, without duplicates, and copies each file once', async () => {
    const target = await start({ port: 0, dbFile: join(dir, 'resume.db'), quiet: true, env, functionsDir: join(dir, 'none') });
    try {
      const client = (base: string) => httpRestClient({ baseUrl: base, applicationId: APP, masterKey: MASTER, brand: 'Svc' });
      const state = memoryState();
      const real = restSink(client(target.url));
      let writes = 0;
      let uploads = 0;
      const failing: TransferSink = {
        ...real,
        write: async (className, records) => {
          if (className === 'Post' && ++writes === 3) throw new Error('the network went away');
          return real.write(className, records);
        },
        upload: async (name, bytes) => (uploads++, real.upload(name, bytes)),
      };
      await expect(transfer({ source: restSource(client(source.url)), sink: failing, state, pageSize: 25, tables: ['Post'] })).rejects.toThrow('the network went away');
      expect(state.load().tables['Post']).toEqual({ after: expect.any(String), done: false });
      const copiedBefore = (await call(target.url, 'GET', '/1/classes/Post?count=1&limit=0')).body.count;
      expect(copiedBefore).toBe(50);
      const report = await transfer({ source: restSource(client(source.url)), sink: { ...real, upload: failing.upload }, state, pageSize: 25, tables: ['Post'] });
      expect(report.complete).toBe(true);
      // The failed page is written again by the resumed run; nothing before it is read twice.
      expect(report.tables[0]).toMatchObject({ source: POSTS, inserted: POSTS - 50, existing: 0, target: POSTS });
      expect(uploads).toBe(1);
    } finally {
      await target.close();
    }
  });
});

describe('svcbase export / import', () => {
  it('round-trips an application through a folder of JSON lines into this server\'s own stores', async () => {
    const out = join(dir, 'export');
    const exported = captured();
    expect(await runCli(['export', '--from', source.url, '--app', APP, '--master-key', MASTER, '--brand', 'Svc', '--out', out, '--quiet'], exported.io)).toBe(0);
    expect(exported.out()).toMatch(/^complete: 4 tables/);
    const localEnv = { ...env, SVC_DB: join(dir, 'imported.db') };
    // The server that will serve the imported stores; its URL is the base of the re-uploaded files' urls.
    const served = await start({ port: 0, quiet: true, env: localEnv, functionsDir: join(dir, 'none') });
    try {
      const imported = captured();
      expect(await runCli(['import', '--in', out, '--public-url', served.url, '--quiet'], { ...imported.io, env: localEnv })).toBe(0);
      expect(imported.err()).toBe('');
      expect(imported.out()).toMatch(/^complete: 4 tables, 154 records copied/);
      await expectSameApplication(served.url);
    } finally {
      await served.close();
    }
  });

  it('refuses a folder that is not an export, and unknown options, with a clear message', async () => {
    const run = captured();
    expect(await runCli(['import', '--in', join(dir, 'nothing-here'), '--quiet'], { ...run.io, env: { ...env, SVC_DB: join(dir, 'x.db') } })).toBe(1);
    expect(run.err()).toMatch(/schemas\.json/);
    const typo = captured();
    expect(await runCli(['export', '--out', join(dir, 'e2'), '--tabels', 'Post'], typo.io)).toBe(2);
    expect(typo.err()).toMatch(/unknown option --tabels/);
  });
});

const pgUp = await postgresAvailable('svcbase migrate into PostgreSQL');
describe.skipIf(!pgUp)('svcbase migrate into PostgreSQL', () => {
  let schema: TestSchema | undefined;
  afterAll(async () => schema?.drop());

  it('copies the same application into a server on PostgreSQL', async () => {
    schema = await createTestSchema('svc_migrate');
    const target = await start({ port: 0, quiet: true, env: { ...env, SVC_FILES: join(dir, 'pg-files') }, databaseUrl: `${PG_URL}?search_path=${schema.name}`, functionsDir: join(dir, 'none') });
    try {
      const run = captured();
      const code = await runCli(['migrate', '--from', source.url, '--app', APP, '--master-key', MASTER, '--brand', 'Svc', '--to', target.url, '--to-app', APP, '--to-master-key', MASTER, '--to-brand', 'Svc', '--state', join(dir, 'pg-state.json'), '--quiet'], run.io);
      expect(run.err()).toBe('');
      expect(code).toBe(0);
      await expectSameApplication(target.url);
    } finally {
      await target.close();
    }
  });
});
