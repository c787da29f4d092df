import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableRule } from '../../src/access/table-rules.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import type { TestServer } from '../helpers/server.js';
import { startRecordsServer } from './records-server.js';

const adapters: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => openSqlite(':memory:')],
];

const q = (params: Record<string, unknown>) =>
  '?' + new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])).toString();

describe.each(adapters)('records REST: lists, include and relations (%s)', (_name, makeStorage) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let post: string;
  beforeAll(async () => {
    server = await startRecordsServer({ storage: makeStorage() });
    alice = (await server.request('POST', '/1/classes/Author', { body: { name: 'Alice', secret: 's1' } })).body.objectId;
    bob = (await server.request('POST', '/1/classes/Author', { body: { name: 'Bob' } })).body.objectId;
    const author = (id: string) => ({ __type: 'Pointer', className: 'Author', objectId: id });
    post = (
      await server.request('POST', '/1/classes/Post', {
        body: { title: 'Hello', score: 3, author: author(alice), fans: { __op: 'AddRelation', objects: [author(alice), author(bob)] } },
      })
    ).body.objectId;
    await server.request('POST', '/1/classes/Post', { body: { title: 'Second', score: 9, author: author(bob) } });
  });
  afterAll(() => server.close());

  it('lists records with where, order and count', async () => {
    const res = await server.request('GET', `/1/classes/Post${q({ where: { score: { $gt: 1 } }, order: '-score', count: 1 })}`);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.results.map((r: { title: string }) => r.title)).toEqual(['Second', 'Hello']);
  });

  it('finds relation members with $relatedTo after AddRelation on create', async () => {
    const where = { $relatedTo: { object: { __type: 'Pointer', className: 'Post', objectId: post }, key: 'fans' } };
    const res = await server.request('GET', `/1/classes/Author${q({ where, order: 'name' })}`);
    expect(res.body.results.map((r: { name: string }) => r.name)).toEqual(['Alice', 'Bob']);
    await server.request('PUT', `/1/classes/Post/${post}`, {
      body: { fans: { __op: 'RemoveRelation', objects: [{ __type: 'Pointer', className: 'Author', objectId: alice }] } },
    });
    const after = await server.request('GET', `/1/classes/Author${q({ where })}`);
    expect(after.body.results.map((r: { objectId: string }) => r.objectId)).toEqual([bob]);
  });

  it('expands include on a single read and keeps keys', async () => {
    const res = await server.request('GET', `/1/classes/Post/${post}?include=author&keys=title`);
    expect(res.body).toMatchObject({ title: 'Hello', author: { __type: 'Object', className: 'Author', objectId: alice, name: 'Alice' } });
    expect(res.body).not.toHaveProperty('score');
  });

  it('statistics go through the same route', async () => {
    const res = await server.request('GET', `/1/classes/Post${q({ sum: 'score' })}`);
    expect(res.body).toEqual({ results: [{ _sumScore: 12 }] });
  });

  it('lists of a table that does not exist are empty; bad names are 103', async () => {
    expect((await server.request('GET', '/1/classes/Nothing')).body).toEqual({ results: [] });
    expect((await server.request('GET', '/1/classes/bad-name')).body.code).toBe(103);
  });
});

describe('records REST: declared table rules guard lists and included objects', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startRecordsServer({
      features: [
        (_ctx, registry) => {
          registry.records!.declareTable('Vault', tableRule({ masterOnly: ['get', 'find', 'count'] }));
          registry.records!.declareTable('Author', tableRule({ secretColumns: ['secret'] }));
          return { name: 'test-policies', routes: [] };
        },
      ],
    });
  });
  afterAll(() => server.close());

  it('a table whose reads are master-only refuses lists too', async () => {
    const res = await server.request('GET', '/1/classes/Vault');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe(11006);
    expect((await server.request('GET', '/1/classes/Vault', { auth: 'master' })).status).toBe(200);
  });

  it('a secret column is hidden from lists and from included objects', async () => {
    const author = (await server.request('POST', '/1/classes/Author', { body: { name: 'A', secret: 'x' } })).body.objectId;
    await server.request('POST', '/1/classes/Book', { body: { by: { __type: 'Pointer', className: 'Author', objectId: author } } });
    const authors = await server.request('GET', '/1/classes/Author');
    expect(authors.body.results[0]).not.toHaveProperty('secret');
    const books = await server.request('GET', '/1/classes/Book?include=by');
    expect(books.body.results[0].by).toMatchObject({ __type: 'Object', name: 'A' });
    expect(books.body.results[0].by).not.toHaveProperty('secret');
  });
});
