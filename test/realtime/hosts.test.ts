import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import { type Service, createService } from '../../src/service.js';
import { HOSTS, type HostName, type MountedHost } from '../helpers/hosts.js';
import { type Client, RT_APP, connect, opened, rtHeaders } from './harness.js';

describe.each(Object.keys(HOSTS) as HostName[])('realtime mounted in %s under /api', (hostName) => {
  let service: Service;
  let host: MountedHost;
  beforeAll(async () => {
    service = createService({ storage: memoryStorage(), applications: [RT_APP], captcha: false, users: false });
    host = await HOSTS[hostName](service);
  });
  afterAll(async () => {
    await service.close();
    await host.close();
  });

  it('JSON protocol and the socket.io handshake both work behind the prefix', async () => {
    const client: Client = opened(await connect(`${host.url.replace(/^http/, 'ws')}/api/1/realtime`, rtHeaders()));
    expect(await client.json()).toMatchObject({ op: 'connected' });
    client.send({ op: 'subscribe', id: 1, action: 'updateTable', tableName: 'GameScore' });
    expect(await client.json()).toEqual({ op: 'subscribed', id: '1' });
    const res = await fetch(`${host.url}/api/1/classes/GameScore`, { method: 'POST', headers: { ...rtHeaders(), 'content-type': 'application/json' }, body: '{"score":7}' });
    expect(res.status).toBe(201);
    expect(await client.json()).toMatchObject({ op: 'event', id: '1', action: 'updateTable', data: { score: 7 } });
    client.ws.terminate();
    const handshake = await fetch(`${host.url}/api/socket.io/1/?t=1`);
    expect(await handshake.text()).toMatch(/^[A-Za-z0-9_-]+:60:60:websocket$/);
  });
});
