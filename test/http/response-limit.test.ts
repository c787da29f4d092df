import { afterEach, describe, expect, it } from 'vitest';
import type { Json } from '../../src/core/wire-values.js';
import type { Feature } from '../../src/http/types.js';
import { memoryStorage } from '../../src/memory.js';
import { createService } from '../../src/service.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

// Regression (D233): a JSON reply past V8's string length made JSON.stringify throw a RangeError in
// the handler, answered as a 500 "internal server error". Every JSON reply is now capped
// (`maxResponseBytes`, 128 MiB by default) and the cap, like a reply no string can hold, is 11092.

/** Routes whose replies a test sizes: `?n=` characters of `?c=`, or a body no string can hold. */
/** A reply body whose serialisation throws `error`. */
const throwing = (error: Error): Json => ({ toJSON: () => { throw error; } }) as unknown as Json;

const sized = (): Feature => ({
  name: 'sized',
  routes: [
    {
      method: 'GET',
      path: '/1/sized',
      auth: 'app',
      body: 'none',
      handler: (ctx) => ({ body: { s: (ctx.query.get('c') ?? 'x').repeat(Number(ctx.query.get('n'))) } }),
    },
    {
      method: 'GET',
      path: '/1/unbuildable',
      auth: 'app',
      body: 'none',
      // What JSON.stringify throws past V8's string length (about 512 M characters), without building one.
      handler: () => ({ body: throwing(new RangeError('Invalid string length')) }),
    },
    { method: 'GET', path: '/1/broken', auth: 'app', body: 'none', handler: () => ({ body: throwing(new RangeError('some other failure')) }) },
  ],
});

describe('the JSON reply cap', () => {
  let server: TestServer;
  afterEach(() => server.close());

  it('D233: a reply past maxResponseBytes answers 11092, counting UTF-8 bytes; smaller replies pass', async () => {
    server = await startTestServer({ maxResponseBytes: 10_000, features: [sized] });
    // {"s":"..."} is 8 bytes around the string.
    expect((await server.request('GET', '/1/sized?n=9992')).status).toBe(200);
    const over = await server.request('GET', '/1/sized?n=9993');
    expect([over.status, over.body]).toEqual([400, { code: 11092, error: 'the response would be larger than 10000 bytes; ask for fewer rows (limit) or fewer fields (keys).' }]);
    // 4000 characters, 12 000 bytes of UTF-8.
    expect((await server.request('GET', `/1/sized?n=4000&c=${encodeURIComponent('字')}`)).body.code).toBe(11092);
    expect((await server.request('GET', `/1/sized?n=3000&c=${encodeURIComponent('字')}`)).status).toBe(200);
  });

  it('D233: a list larger than the cap answers 11092 and a smaller page passes', async () => {
    server = await startTestServer({ maxResponseBytes: 50_000 });
    const requests = Array.from({ length: 10 }, () => ({ method: 'POST', path: '/1/classes/Wide', body: { s: 'w'.repeat(10_000) } }));
    expect((await server.request('POST', '/1/batch', { body: { requests } })).status).toBe(200);
    expect((await server.request('GET', '/1/classes/Wide?limit=10')).body.code).toBe(11092);
    const page = await server.request('GET', '/1/classes/Wide?limit=3');
    expect([page.status, page.body.results.length]).toEqual([200, 3]);
  });

  it('D233: a reply no string can hold answers 11092, not a 500; other failures stay 500', async () => {
    server = await startTestServer({ features: [sized] });
    const res = await server.request('GET', '/1/unbuildable');
    expect([res.status, res.body.code]).toEqual([400, 11092]);
    expect(res.body.error).toContain(String(128 * 1024 * 1024));
    expect((await server.request('GET', '/1/broken')).status).toBe(500);
  });

  it('refuses a maxResponseBytes that is not a positive whole number', () => {
    for (const maxResponseBytes of [0, -1, 1.5, Number.NaN]) {
      expect(() => createService({ storage: memoryStorage(), applications: [TEST_APP], maxResponseBytes })).toThrow(/\[svcbase\] \[service\] maxResponseBytes/);
    }
  });
});
