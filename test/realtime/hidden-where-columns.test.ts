import { describe, expect, it } from 'vitest';
import { jsonClient, rtHeaders, realtimeServerEachTest, subscribe } from './harness.js';

/**
 * Regression (audit rt-stale-protected-where): a where subscription kept matching on a column after
 * that column became hidden from its subscriber (protectedFields set, a revealing role taken away),
 * while REST and a new subscribe refused the same where with 102. Every event it still matched told
 * the subscriber the hidden value. Now such a subscription is dropped with 102 at the first change
 * its subscriber's view hides the column in, and matches nothing more.
 */
describe('realtime: a where naming a column that becomes hidden is dropped (102)', () => {
  const rt = realtimeServerEachTest();
  const { clients } = rt;

  const master = (method: string, path: string, body?: unknown) => rt.server.request(method, path, { auth: 'master', ...(body === undefined ? {} : { body }) });
  const open = async (headers: Record<string, string> = rtHeaders()) => {
    const client = await jsonClient(rt.server, headers);
    clients.push(client);
    return client;
  };
  const protect = async (protectedFields: Record<string, string[]>) => expect((await master('PUT', '/1/schemas/Card', { classLevelPermissions: { protectedFields } })).status).toBe(200);
  const card = async (label: string, pin: string) => expect((await master('POST', '/1/classes/Card', { label, pin })).status).toBe(201);

  it('protectedFields set after subscribing: the where is dropped with 102 before the first change is matched, and matches nothing after; the master key keeps its own', async () => {
    await card('c0', '1111');
    const anon = await open();
    await subscribe(anon, { id: 'probe', tableName: 'Card', where: { pin: '0000' } });
    // The table's every change, after the where: the event that shows a change was dispatched.
    await subscribe(anon, { id: 'all', tableName: 'Card', action: 'updateTable' });
    const owner = await open(rtHeaders({ 'X-Svc-Master-Key': 'test-master-key' }));
    await subscribe(owner, { id: 'pin', tableName: 'Card', where: { pin: '0000' } });

    await protect({ '*': ['pin'] });
    await card('c1', '0000');
    expect(await anon.json()).toEqual({ op: 'error', id: 'probe', code: 102, error: "invalid key 'pin' for find: this column cannot be queried." });
    const first = await anon.json();
    expect(first).toMatchObject({ op: 'event', id: 'all', action: 'updateTable', data: { label: 'c1' } });
    expect(first.data).not.toHaveProperty('pin');
    await card('c2', '0000');
    await card('c3', '1234');
    // Only the action subscription's events: the where matches no more.
    expect((await anon.json()).data.label).toBe('c2');
    expect((await anon.json()).data.label).toBe('c3');
    anon.send({ op: 'unsubscribe', id: 'probe' });
    expect(await anon.json()).toMatchObject({ op: 'error', id: 'probe', code: 11165 });
    // The master key's view hides nothing: its identical where still matches.
    expect(await owner.json()).toMatchObject({ op: 'event', id: 'pin', action: 'create', data: { label: 'c1', pin: '0000' } });
    expect(await owner.json()).toMatchObject({ op: 'event', id: 'pin', action: 'create', data: { label: 'c2', pin: '0000' } });
  });

  it('a role that revealed the column taken away: that user\'s where is dropped at the next change', async () => {
    const sam = (await rt.server.request('POST', '/1/users', { body: { username: 'sam', password: 'pw123456' } })).body as { objectId: string; sessionToken: string };
    const pointer = { __type: 'Pointer', className: '_User', objectId: sam.objectId };
    const role = await master('POST', '/1/roles', { name: 'staff', users: { __op: 'AddRelation', objects: [pointer] } });
    expect(role.status).toBe(201);
    await card('c0', '1111');
    await protect({ '*': ['pin'], 'role:staff': [] });
    const client = await open(rtHeaders({ 'X-Svc-Session-Token': sam.sessionToken }));
    await subscribe(client, { id: 'probe', tableName: 'Card', where: { pin: '0000' } });
    await subscribe(client, { id: 'all', tableName: 'Card', action: 'updateTable' });
    await card('c1', '0000');
    expect(await client.json()).toMatchObject({ op: 'event', id: 'probe', action: 'create', data: { label: 'c1', pin: '0000' } });
    expect(await client.json()).toMatchObject({ op: 'event', id: 'all', data: { label: 'c1', pin: '0000' } });

    expect((await master('PUT', `/1/roles/${(role.body as { objectId: string }).objectId}`, { users: { __op: 'RemoveRelation', objects: [pointer] } })).status).toBe(200);
    await card('c2', '0000');
    expect(await client.json()).toMatchObject({ op: 'error', id: 'probe', code: 102 });
    const next = await client.json();
    expect(next).toMatchObject({ op: 'event', id: 'all', data: { label: 'c2' } });
    expect(next.data).not.toHaveProperty('pin');
  });

  it('permissions that hide another column leave the where alone', async () => {
    await card('c0', '1111');
    const anon = await open();
    await subscribe(anon, { id: 'probe', tableName: 'Card', where: { pin: '0000' } });
    await protect({ '*': ['label'] });
    await card('c1', '0000');
    const event = await anon.json();
    expect(event).toMatchObject({ op: 'event', id: 'probe', action: 'create', data: { pin: '0000' } });
    expect(event.data).not.toHaveProperty('label');
    await card('c2', '0000');
    expect(await anon.json()).toMatchObject({ op: 'event', id: 'probe', action: 'create' });
  });
});
