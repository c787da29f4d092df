import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { lineReader } from '../helpers/line-reader.js';

/** Two processes serving one application from one SQLite file (docs/adapters.md: sharing a file). */
describe('sqlite: two processes sharing one file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-shared-'));
  const worker = fileURLToPath(new URL('./fixtures/service-worker.ts', import.meta.url));
  let children: ChildProcess[] = [];
  let lines: Array<() => Promise<string>> = [];
  let files = 0;

  beforeAll(async () => {
    children = [0, 1].map(() => spawn(process.execPath, ['--import', 'tsx', worker], { stdio: ['pipe', 'pipe', 'inherit'] }));
    lines = children.map(lineReader);
    expect(await Promise.all(lines.map((next) => next()))).toEqual(['ready', 'ready']);
  }, 60_000);
  afterAll(() => {
    for (const child of children) child.stdin!.write('exit\n');
    rmSync(dir, { recursive: true, force: true });
  });

  /** Both processes open a fresh file; resolves with their base URLs. */
  const openFresh = async (): Promise<[string, string]> => {
    const file = join(dir, `shared-${++files}.db`);
    for (const child of children) child.stdin!.write(`open ${file}\n`);
    const urls = (await Promise.all(lines.map((next) => next()))).map((line) => line.replace(/^url /, ''));
    return [urls[0]!, urls[1]!];
  };

  const call = async (base: string, method: string, path: string, body?: unknown, master = false) => {
    const res = await fetch(base + path, {
      method,
      headers: { ...appHeaders(), ...(master ? { 'X-Svc-Master-Key': TEST_APP.masterKey } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  it('D6: two processes racing on a fresh file both serve sign-up, login and user listing', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const urls = await openFresh();
      const signUps = await Promise.all(
        urls.flatMap((url, p) => [0, 1].map((i) => call(url, 'POST', '/1/users', { username: `u${p}${i}`, password: 'pw' }))),
      );
      expect(signUps.map((r) => r.status), `trial ${trial}`).toEqual([201, 201, 201, 201]);
      for (const url of urls) {
        expect((await call(url, 'GET', '/1/login?username=u00&password=pw')).status, `trial ${trial}`).toBe(200);
        expect((await call(url, 'GET', '/1/users')).body.results, `trial ${trial}`).toHaveLength(4);
      }
    }
  }, 60_000);

  it("D12: a column added by one process is visible to the other's reads without a restart", async () => {
    const [a, b] = await openFresh();
    const created = await call(a, 'POST', '/1/classes/Shared', { a: 1 });
    // b caches the schema {a}.
    expect((await call(b, 'GET', `/1/classes/Shared/${created.body.objectId}`)).body).toMatchObject({ a: 1 });
    expect((await call(a, 'PUT', `/1/classes/Shared/${created.body.objectId}`, { fresh: 'yes' })).status).toBe(200);
    expect((await call(b, 'GET', `/1/classes/Shared/${created.body.objectId}`)).body).toMatchObject({ a: 1, fresh: 'yes' });
    const where = encodeURIComponent(JSON.stringify({ fresh: 'yes' }));
    expect((await call(b, 'GET', `/1/classes/Shared?where=${where}`)).body.results).toHaveLength(1);
    // A table created by a: visible to b's reads and writes.
    await call(a, 'POST', '/1/classes/Later', { n: 1 });
    expect((await call(b, 'GET', '/1/classes/Later')).body.results).toHaveLength(1);
    expect((await call(b, 'POST', '/1/classes/Later', { n: 2, m: 'x' })).status).toBe(201);
    expect((await call(a, 'GET', `/1/classes/Later?where=${encodeURIComponent('{"m":"x"}')}`)).body.results).toHaveLength(1);
  }, 60_000);

  it('a column and a table dropped through one process are gone for the other at once, and come back when written', async () => {
    const [a, b] = await openFresh();
    const created = await call(a, 'POST', '/1/classes/Dropped', { keep: 1, gone: 'x' });
    expect((await call(b, 'GET', `/1/classes/Dropped/${created.body.objectId}`)).body).toMatchObject({ keep: 1, gone: 'x' });
    expect((await call(a, 'PUT', '/1/schemas/Dropped', { fields: { gone: { __op: 'Delete' } } }, true)).status).toBe(200);
    const read = (await call(b, 'GET', `/1/classes/Dropped/${created.body.objectId}`)).body;
    expect(read.keep).toBe(1);
    expect(read.gone).toBeUndefined();
    // b writes the name again with another type: the column comes back as a Number.
    expect((await call(b, 'POST', '/1/classes/Dropped', { gone: 5 })).status).toBe(201);
    expect((await call(a, 'GET', '/1/schemas/Dropped', undefined, true)).body.fields.gone).toEqual({ type: 'Number' });
    for (const row of (await call(a, 'GET', '/1/classes/Dropped')).body.results) await call(a, 'DELETE', `/1/classes/Dropped/${row.objectId}`);
    expect((await call(b, 'DELETE', '/1/schemas/Dropped', undefined, true)).status).toBe(200);
    expect((await call(a, 'GET', '/1/classes/Dropped')).body.results).toEqual([]);
    expect((await call(a, 'POST', '/1/classes/Dropped', { gone: 'text' })).status).toBe(201);
  }, 60_000);
});
