import { describe, expect, it } from 'vitest';
import { start } from '../../examples/realtime/server.js';
import { connect, opened } from './harness.js';

describe('examples/realtime/server.ts', () => {
  it('serves the JSON protocol as its header comment shows', async () => {
    const server = await start(0);
    try {
      const headers = { 'X-Svc-Application-Id': 'rt-app', 'X-Svc-REST-API-Key': 'rt-rest' };
      const client = opened(await connect(`${server.url.replace(/^http/, 'ws')}/1/realtime`, headers));
      expect(await client.json()).toMatchObject({ op: 'connected', applicationId: 'rt-app' });
      client.send({ op: 'subscribe', id: 1, action: 'updateTable', tableName: 'GameScore' });
      expect(await client.json()).toEqual({ op: 'subscribed', id: '1' });
      await fetch(`${server.url}/1/classes/GameScore`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"score":1}' });
      expect(await client.json()).toMatchObject({ op: 'event', action: 'updateTable', data: { score: 1 } });
      const closed = client.closed;
      await server.close();
      expect((await closed).code).toBe(1001);
    } finally {
      await server.close().catch(() => {});
    }
  });
});
