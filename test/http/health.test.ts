import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** `/health` and `/ready` for load balancers: no credentials, no internals, 503 when a store is down. */
describe('health and readiness', () => {
  let server: TestServer;
  afterEach(() => server.close());

  it('answer without credentials while everything is up', async () => {
    server = await startTestServer({ captcha: false });
    expect(await server.request('GET', '/health', { auth: false })).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(await server.request('GET', '/ready', { auth: false })).toMatchObject({ status: 200, body: { status: 'ready', storage: true, kv: true, counters: true } });
  });

  it('/ready answers 503 naming the part that is down, without its error', async () => {
    const storage = memoryStorage();
    const broken: StorageAdapter = {
      ...storage,
      getSchema: (ref) => {
        if (ref.namespace === 'svchealth') throw new Error('disk on fire at /var/lib/secret');
        return storage.getSchema(ref);
      },
    };
    server = await startTestServer({ captcha: false, storage: broken });
    const res = await server.request('GET', '/ready', { auth: false });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', storage: false, kv: true, counters: true });
    expect(res.text).not.toContain('fire');
    expect((await server.request('GET', '/health', { auth: false })).status).toBe(200);
  });
});
