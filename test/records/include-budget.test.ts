import { afterEach, describe, expect, it } from 'vitest';
import type { Json } from '../../src/core/wire-values.js';
import type { CloudFunction } from '../../src/functions/index.js';
import { memoryStorage } from '../../src/memory.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

// Regression (D233): `include` repeated one target's JSON once per Pointer naming it, unbounded. A
// 900 KB record named 700 times (a 60 KB array) or by 800 rows made a 600+ MB reply: a 500 after
// 3-12 s (RangeError: Invalid string length in JSON.stringify) with the server frozen meanwhile, or a
// 180 MB body from 200 rows. Now what include adds is counted as targets arrive and bounded
// (`settings.query.maxIncludeBytes`, 16 MiB): 11092 at once, nothing built.

const adapters: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => openSqlite(':memory:')],
];
const BIG = 'x'.repeat(900_000);
const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });

/** Creates `count` records of `className` with `fields`, 50 a batch. */
async function createMany(server: TestServer, className: string, count: number, fields: Record<string, unknown>): Promise<void> {
  for (let done = 0; done < count; done += 50) {
    const requests = Array.from({ length: Math.min(50, count - done) }, () => ({ method: 'POST', path: `/1/classes/${className}`, body: fields }));
    const res = await server.request('POST', '/1/batch', { body: { requests } });
    expect(res.status).toBe(200);
  }
}

async function created(server: TestServer, className: string, body: Record<string, unknown>): Promise<string> {
  const res = await server.request('POST', `/1/classes/${className}`, { body });
  expect(res.status).toBe(201);
  return res.body.objectId as string;
}

function expectTooLarge(res: { status: number; body: any; text: string }): void {
  expect(res.status).toBe(400);
  expect(res.body.code).toBe(11092);
  expect(res.body.error).toContain(String(16 * 1024 * 1024));
  expect(res.text.length).toBeLessThan(1000);
}

describe.each(adapters)('include: one reply is bounded (%s)', (_name, storage) => {
  let server: TestServer;
  afterEach(() => server.close());

  it('D233: an array of 700 Pointers to one 900 KB record answers 11092 (was a 500 after seconds); a normal include still works', async () => {
    server = await startTestServer({ storage: storage() });
    const big = await created(server, 'BigR', { s: BIG });
    const amp = await created(server, 'Amp', { arr: Array.from({ length: 700 }, () => pointer('BigR', big)) });

    expectTooLarge(await server.request('GET', '/1/classes/Amp?include=arr'));
    expectTooLarge(await server.request('GET', `/1/classes/Amp/${amp}?include=arr`));

    // The same record named a few times, and a small one, expand as before.
    const small = await created(server, 'Small', { name: 'ok' });
    const few = await created(server, 'Few', { arr: [pointer('BigR', big), pointer('BigR', big), pointer('Small', small)], one: pointer('Small', small) });
    const list = await server.request('GET', `/1/classes/Few?include=arr,one`);
    expect(list.status).toBe(200);
    const [row] = list.body.results;
    expect(row.arr.map((o: any) => [o.__type, o.className, o.objectId])).toEqual([['Object', 'BigR', big], ['Object', 'BigR', big], ['Object', 'Small', small]]);
    expect(row.arr[0].s).toHaveLength(BIG.length);
    expect(row.one).toMatchObject({ __type: 'Object', className: 'Small', objectId: small, name: 'ok' });
    const one = await server.request('GET', `/1/classes/Few/${few}?include=one`);
    expect(one.body.one).toMatchObject({ __type: 'Object', objectId: small, name: 'ok' });
    // The refused reads left the stored records as they were.
    const stored = await server.request('GET', `/1/classes/Amp/${amp}`);
    expect(stored.body.arr).toHaveLength(700);
    expect(stored.body.arr[0]).toEqual(pointer('BigR', big));
  });

  it('D233: 800 rows naming the same 900 KB record answer 11092 for include=p; fewer rows or some fields only expand', async () => {
    server = await startTestServer({ storage: storage() });
    const big = await created(server, 'BigR', { s: BIG });
    await createMany(server, 'Row', 800, { p: pointer('BigR', big) });

    expectTooLarge(await server.request('GET', '/1/classes/Row?include=p&limit=1000'));
    // 19 rows already pass 16 MiB: the bound counts each place the record fills.
    expectTooLarge(await server.request('GET', '/1/classes/Row?include=p&limit=19'));

    const five = await server.request('GET', '/1/classes/Row?include=p&limit=5');
    expect(five.status).toBe(200);
    expect(five.body.results).toHaveLength(5);
    for (const row of five.body.results) expect(row.p).toMatchObject({ __type: 'Object', className: 'BigR', objectId: big, s: BIG });
    const subset = await server.request('GET', '/1/classes/Row?include=p[objectId]&limit=1000');
    expect(subset.status).toBe(200);
    expect(subset.body.results).toHaveLength(800);
    expect(subset.body.results[0].p).toEqual(expect.objectContaining({ __type: 'Object', objectId: big }));
    expect(subset.body.results[0].p.s).toBeUndefined();
  });

  it('D233: a nested target counts once per place its parent fills (post.author)', async () => {
    server = await startTestServer({ storage: storage() });
    const author = await created(server, 'Author', { bio: 'b'.repeat(300_000) });
    const post = await created(server, 'Post', { title: 't', author: pointer('Author', author) });
    await createMany(server, 'Comment', 60, { post: pointer('Post', post) });

    // One author record, but 60 copies of it in the reply: 18 MB.
    expectTooLarge(await server.request('GET', '/1/classes/Comment?include=post.author&limit=100'));
    const posts = await server.request('GET', '/1/classes/Comment?include=post&limit=100');
    expect(posts.status).toBe(200);
    expect(posts.body.results[0].post).toMatchObject({ __type: 'Object', title: 't', author: pointer('Author', author) });
    const nested = await server.request('GET', '/1/classes/Comment?include=post.author&limit=10');
    expect(nested.status).toBe(200);
    expect(nested.body.results[9].post.author).toMatchObject({ __type: 'Object', objectId: author });
  });
});

describe('include: the bound is a setting, and every reader shares it', () => {
  let server: TestServer;
  afterEach(() => server.close());

  it('D233: settings.query.maxIncludeBytes moves the bound', async () => {
    server = await startTestServer({ applications: [{ ...TEST_APP, settings: { query: { maxIncludeBytes: 2000 } } }] });
    const small = await created(server, 'T', { s: 'y'.repeat(700) });
    const large = await created(server, 'T', { s: 'y'.repeat(3000) });
    const holder = await created(server, 'H', { small: pointer('T', small), large: pointer('T', large), pair: [pointer('T', small), pointer('T', small)] });

    expect((await server.request('GET', `/1/classes/H/${holder}?include=small`)).body.small.s).toHaveLength(700);
    expect((await server.request('GET', `/1/classes/H/${holder}?include=pair`)).body.pair[1].s).toHaveLength(700);
    // One record of ~800 bytes: once and twice fit, three places (two paths together) do not.
    for (const include of ['large', 'small,pair']) {
      const res = await server.request('GET', `/1/classes/H/${holder}?include=${include}`);
      expect([res.status, res.body.code, res.body.error], include).toEqual([400, 11092, expect.stringContaining('more than 2000 bytes')]);
    }
  });

  it("D233: a cloud function's oData.find and findOne with include get the same 11092", async () => {
    const asCode = (work: () => Promise<unknown>): Promise<Json> => work().then((value) => value as Json, (error: { code?: number }) => ({ code: error.code ?? null }));
    const definitions: Record<string, CloudFunction> = {
      findAmp: async (_request, response, modules) => response.send(await asCode(() => modules.oData.find({ table: 'Amp', include: 'arr' }))),
      findOneAmp: async (request, response, modules) =>
        response.send(await asCode(() => modules.oData.findOne({ table: 'Amp', objectId: String(request.body['id']), include: 'arr' }))),
    };
    server = await startTestServer({ captcha: false, functions: { definitions } });
    const big = await created(server, 'BigR', { s: BIG });
    const amp = await created(server, 'Amp', { arr: Array.from({ length: 700 }, () => pointer('BigR', big)) });

    const found = await server.request('POST', '/1/functions/findAmp', { body: {} });
    expect(found.body.result ?? found.body).toEqual({ code: 11092 });
    const one = await server.request('POST', '/1/functions/findOneAmp', { body: { id: amp } });
    expect(one.body.result ?? one.body).toEqual({ code: 11092 });
  });
});
