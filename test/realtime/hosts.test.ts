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

  it("the SDK's socket.io flow: handshake, connect, client_sub, server_pub for a create", async () => {
    const sid = (await (await fetch(`${host.url}/api/socket.io/1/?t=2`)).text()).split(':')[0]!;
    const client: Client = opened(await connect(`${host.url.replace(/^http/, 'ws')}/api/socket.io/1/websocket/${sid}?`));
    expect(await client.next()).toBe('1::');
    expect(await client.next()).toMatch(/^5:::.*client_send_data/);
    const frame = (name: string, payload: object) => `5:::${JSON.stringify({ name, args: [JSON.stringify(payload)] })}`;
    client.send(frame('client_sub', { appKey: RT_APP.applicationId, tableName: 'Sio', objectId: '', action: 'updateTable' }));
    // Frames of one socket are handled in order: a refused frame's error event means the subscription is active.
    client.send('barrier');
    expect(await client.next()).toMatch(/^5:::.*"error"/);
    const res = await fetch(`${host.url}/api/1/classes/Sio`, { method: 'POST', headers: { ...rtHeaders(), 'content-type': 'application/json' }, body: '{"n":3}' });
    expect(res.status).toBe(201);
    const pushed = JSON.parse((await client.next()).slice(4)) as { name: string; args: [string] };
    expect(pushed.name).toBe('server_pub');
    expect(JSON.parse(pushed.args[0])).toMatchObject({ action: 'updateTable', tableName: 'Sio', data: { n: 3 } });
    client.ws.terminate();
  });
});
