import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedServer, start } from '../../src/cli/serve.js';

/** `POST /1/import/:table` (the route `svcbase import` and `migrate` write through) over real HTTP on SQLite. */
const dir = mkdtempSync(join(tmpdir(), 'svcbase-import-'));
const env = { PATH: process.env.PATH } as Record<string, string | undefined>;
const master = { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-Master-Key': 'dev-master-key', 'content-type': 'application/json' };
const rest = { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-REST-API-Key': 'dev-rest-key', 'content-type': 'application/json' };
let server: StartedServer;

beforeAll(async () => {
  server = await start({ port: 0, dbFile: join(dir, 'import.db'), quiet: true, env, functionsDir: join(dir, 'none') });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function post(table: string, body: unknown, headers: Record<string, string> = master) {
  const response = await fetch(`${server.url}/1/import/${table}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
const count = async (table: string) => ((await (await fetch(`${server.url}/1/classes/${table}?count=1&limit=0`, { headers: master })).json()) as { count?: number }).count ?? 0;
const record = (objectId: string, extra: Record<string, unknown> = {}) => ({ objectId, createdAt: '2024-05-01 10:00:00', updatedAt: '2024-05-02 11:30:00', ...extra });

describe('POST /1/import/:table', () => {
  it('keeps ids, times, ACLs and relation members, and skips ids already there', async () => {
    const first = await post('Note', { records: [record('n1', { text: "it's '; DROP TABLE Note; --", ACL: { u1: { read: true } }, readers: { __type: 'Relation', className: '_User', objectIds: ['u1', 'u2'] } }), record('n2')] });
    expect(first).toEqual({ status: 200, body: { inserted: 2, existing: 0 } });
    const got = (await (await fetch(`${server.url}/1/classes/Note/n1`, { headers: master })).json()) as Record<string, unknown>;
    expect(got).toMatchObject({ objectId: 'n1', createdAt: '2024-05-01 10:00:00', updatedAt: '2024-05-02 11:30:00', text: "it's '; DROP TABLE Note; --", ACL: { u1: { read: true } } });
    // The ACL is enforced: a REST-key caller does not see n1.
    expect((await fetch(`${server.url}/1/classes/Note/n1`, { headers: rest })).status).toBe(404);
    const where = JSON.stringify({ $relatedTo: { object: { __type: 'Pointer', className: 'Note', objectId: 'n1' }, key: 'readers' } });
    const related = await fetch(`${server.url}/1/classes/_User?where=${encodeURIComponent(where)}`, { headers: master });
    expect(related.status).toBe(200);
    const again = await post('Note', { records: [record('n1'), record('n3')] });
    expect(again.body).toEqual({ inserted: 1, existing: 1 });
    expect(await count('Note')).toBe(3);
  });

  it.each([
    ['a REST key instead of the master key', 'Bad', { records: [record('b1')] }, rest, 11006],
    ['a body without records', 'Bad', { rows: [] }, master, 11211],
    ['an objectId that is not an id', 'Bad', { records: [record("x'; DROP TABLE Bad; --")] }, master, 11211],
    ['a missing createdAt', 'Bad', { records: [{ objectId: 'b1' }] }, master, 11211],
    ['a date that is not a date', 'Bad', { records: [record('b1', { createdAt: '2024-02-31 00:00:00' })] }, master, 11211],
    ['the same id twice', 'Bad', { records: [record('b1'), record('b1')] }, master, 11211],
    ['a __proto__ key', 'Bad', '{"records":[{"objectId":"b1","createdAt":"2024-05-01 10:00:00","__proto__":{"x":1}}]}', master, 11004],
    ['a __proto__ relation', 'Bad', '{"records":[{"objectId":"b1","createdAt":"2024-05-01 10:00:00","__proto__":{"__type":"Relation","className":"_User","objectIds":[]}}]}', master, 11004],
    ['a relation with bad ids', 'Bad', { records: [record('b1', { r: { __type: 'Relation', className: '_User', objectIds: ['ok', "no'"] } })] }, master, 11211],
    ['a password for a user', '_User', { records: [record('b1', { username: 'x', password: 'p' })] }, master, 11211],
    ['the sessions table', '_Session', { records: [record('b1')] }, master, 11211],
    ['more than 1000 records', 'Bad', { records: Array.from({ length: 1001 }, (_, i) => record(`r${i}`)) }, master, 11211],
    ['a table name with a quote', "Bad'", { records: [record('b1')] }, master, 103],
  ])('refuses %s with its code and writes nothing', async (_what, table, body, headers, code) => {
    const reply = await post(encodeURIComponent(table), body, headers);
    // Valid keys without the master key answer as every master-only route does: 403 / 11006.
    expect(reply.status).toBe(code === 11006 ? 403 : 400);
    expect(reply.body.code).toBe(code);
    expect(await count('Bad')).toBe(0);
  });

  it('is all or nothing: one bad record among good ones writes none', async () => {
    const reply = await post('Batch', { records: [record('g1'), record('g2'), record('g3', { n: { __type: 'Date', iso: 'yesterday' } })] });
    expect(reply.status).toBe(400);
    expect(await count('Batch')).toBe(0);
  });

  it('refuses a column that differs only in case from an existing one', async () => {
    expect((await post('Cased', { records: [record('c1', { Title: 'a' })] })).status).toBe(200);
    const reply = await post('Cased', { records: [record('c2', { title: 'b' })] });
    expect(reply.body.code).toBe(11081);
    expect(await count('Cased')).toBe(1);
  });

  it('twenty parallel imports of the same ids write each record once', async () => {
    const records = Array.from({ length: 50 }, (_, i) => record(`p${i}`, { i }));
    const replies = await Promise.all(Array.from({ length: 20 }, () => post('Parallel', { records })));
    expect(replies.every((reply) => reply.status === 200)).toBe(true);
    expect(replies.reduce((sum, reply) => sum + Number(reply.body.inserted), 0)).toBe(50);
    expect(await count('Parallel')).toBe(50);
  });
});
