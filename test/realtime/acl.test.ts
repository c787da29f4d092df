import { describe, expect, it } from 'vitest';
import { jsonClient, rtHeaders, realtimeServerEachTest, subscribe } from './harness.js';

/**
 * Realtime deliveries follow the records' ACLs: a connection receives a record only when it could
 * GET it over REST (its user, one of its roles, or everyone granted read; the master key always).
 */
describe('realtime: per-subscriber ACL filtering', () => {
  const rt = realtimeServerEachTest();
  const { clients } = rt;

  const signUp = async (username: string) => {
    const res = await rt.server.request('POST', '/1/users', { body: { username, password: 'pw' } });
    expect(res.status).toBe(201);
    return res.body as { objectId: string; sessionToken: string };
  };
  const open = async (headers: Record<string, string>) => {
    const client = await jsonClient(rt.server, headers);
    clients.push(client);
    await subscribe(client, { id: 't', action: 'updateTable', tableName: 'Note' });
    return client;
  };

  it('owner, role member and master receive a private record; another user and anonymous do not', async () => {
    const owner = await signUp('owner');
    const other = await signUp('other');
    const member = await signUp('member');
    const role = await rt.server.request('POST', '/1/roles', {
      auth: 'master',
      body: { name: 'readers', users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: member.objectId }] } },
    });
    expect(role.status).toBe(201);
    const token = (t: string) => rtHeaders({ 'X-Svc-Session-Token': t });
    const ownerC = await open(token(owner.sessionToken));
    const otherC = await open(token(other.sessionToken));
    const memberC = await open(token(member.sessionToken));
    const anonC = await open(rtHeaders());
    const masterC = await open(rtHeaders({ 'X-Svc-Master-Key': 'test-master-key' }));

    const acl = { [owner.objectId]: { read: true, write: true }, 'role:readers': { read: true } };
    const secret = await rt.server.request('POST', '/1/classes/Note', { body: { text: 'secret', ACL: acl }, auth: 'master' });
    expect(secret.status).toBe(201);
    // A public record after it: every connection gets it, so "no message yet" is not a timing guess.
    await rt.server.request('POST', '/1/classes/Note', { body: { text: 'public' } });
    for (const [client, seesSecret] of [[ownerC, true], [otherC, false], [memberC, true], [anonC, false], [masterC, true]] as const) {
      const first = await client.json();
      expect(first.data.text).toBe(seesSecret ? 'secret' : 'public');
      if (seesSecret) expect((await client.json()).data.text).toBe('public');
    }
  });
});
