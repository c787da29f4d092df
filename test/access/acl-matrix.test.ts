import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageBackends } from '../helpers/backends.js';
import { type UsersServer, startUsersServer } from '../users/users-server.js';

/**
 * The access-control matrix over real HTTP: every read and write path, for each kind of caller,
 * against records whose ACLs name a user, a role (with a nested child role), everyone, or nobody.
 * Each row states what the caller must see; every refused write is checked to have written nothing,
 * and every read path is checked not to leak through counts, statistics, include or inner queries.
 */
const ADAPTERS = await storageBackends('acl-matrix', 'svc_acl');

type Who = 'owner' | 'other' | 'anonymous' | 'member' | 'nested' | 'master';
const EVERYONE: readonly Who[] = ['owner', 'other', 'anonymous', 'member', 'nested', 'master'];
type DocName = 'priv' | 'team' | 'pub' | 'readOnly' | 'sealed';
const DOCS: readonly DocName[] = ['priv', 'team', 'pub', 'readOnly', 'sealed'];
/** Each doc's `n`: a power of two, so a sum names exactly which docs a statistics query saw. */
const N: Record<DocName, number> = { priv: 1, team: 2, pub: 4, readOnly: 8, sealed: 16 };

/** Who may read / write each doc (the expected side of every row). */
const READERS: Record<DocName, readonly Who[]> = {
  priv: ['owner', 'master'],
  team: ['member', 'nested', 'master'],
  pub: EVERYONE,
  readOnly: EVERYONE,
  sealed: ['master'],
};
const WRITERS: Record<DocName, readonly Who[]> = {
  priv: ['owner', 'master'],
  team: ['member', 'nested', 'master'],
  pub: EVERYONE,
  readOnly: ['owner', 'master'],
  sealed: ['master'],
};

describe.each(ADAPTERS)('ACL matrix over HTTP (%s)', (_name, backend) => {
  let server: UsersServer;
  let drop: (() => Promise<void>) | undefined;
  const tokens = new Map<Who, string | null>();
  const userIds = new Map<Who, string>();
  const ids = {} as Record<DocName, string>;
  let boxId = '';

  const send = (who: Who, method: string, path: string, body?: unknown) =>
    who === 'master' ? server.request(method, path, { body, auth: 'master' }) : server.as(tokens.get(who) ?? null, method, path, body);
  const readable = (who: Who) => DOCS.filter((d) => READERS[d].includes(who));
  const idsOf = (docs: readonly DocName[]) => docs.map((d) => ids[d]).sort();
  const resultIds = (body: { results: Array<{ objectId: string }> }) => body.results.map((r) => r.objectId).sort();

  beforeAll(async () => {
    const made = await backend();
    drop = made.drop;
    server = await startUsersServer({ storage: made.storage });
    for (const who of ['owner', 'other', 'member', 'nested'] as const) {
      const user = await server.signUp({ username: who, password: 'pw' });
      tokens.set(who, user.sessionToken);
      userIds.set(who, user.objectId);
    }
    tokens.set('anonymous', null);
    const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
    // editors holds member; juniors (a child role of editors) holds nested: juniors' members get editors' rights.
    const juniors = await send('master', 'POST', '/1/roles', {
      name: 'juniors',
      users: { __op: 'AddRelation', objects: [pointer('_User', userIds.get('nested')!)] },
    });
    expect(juniors.status).toBe(201);
    const editors = await send('master', 'POST', '/1/roles', {
      name: 'editors',
      users: { __op: 'AddRelation', objects: [pointer('_User', userIds.get('member')!)] },
      roles: { __op: 'AddRelation', objects: [pointer('_Role', juniors.body.objectId)] },
    });
    expect(editors.status).toBe(201);
    expect(editors.headers.get("location")).toMatch(new RegExp(`/1/roles/${editors.body.objectId}$`));
    const owner = userIds.get('owner')!;
    const acls: Record<DocName, unknown> = {
      priv: { [owner]: { read: true, write: true } },
      team: { 'role:editors': { read: true, write: true } },
      pub: undefined,
      readOnly: { '*': { read: true }, [owner]: { write: true } },
      sealed: {},
    };
    for (const doc of DOCS) {
      const acl = acls[doc];
      const res = await send('master', 'POST', '/1/classes/Doc', { name: doc, n: N[doc], ...(acl === undefined ? {} : { ACL: acl }) });
      expect(res.status).toBe(201);
      ids[doc] = res.body.objectId;
      // One public Ref per doc: include and inner queries must not reveal an unreadable doc through it.
      expect((await send('master', 'POST', '/1/classes/Ref', { doc: pointer('Doc', ids[doc]), label: doc })).status).toBe(201);
    }
    const box = await send('master', 'POST', '/1/classes/Box', {
      ACL: { [owner]: { read: true } },
      items: { __op: 'AddRelation', objects: DOCS.map((d) => pointer('Doc', ids[d])) },
    });
    boxId = box.body.objectId;
  });
  afterAll(async () => {
    await server?.close();
    await drop?.();
  });

  describe.each(EVERYONE)('as %s', (who) => {
    it('get: a readable doc answers 200, any other 404 with code 101 (as if missing)', async () => {
      for (const doc of DOCS) {
        const res = await send(who, 'GET', `/1/classes/Doc/${ids[doc]}`);
        if (READERS[doc].includes(who)) expect([doc, res.status, res.body.name]).toEqual([doc, 200, doc]);
        else expect([doc, res.status, res.body.code]).toEqual([doc, 404, 101]);
      }
    });

    it('find, count and statistics see exactly the readable docs, with limit and skip exact', async () => {
      const mine = readable(who);
      const all = await send(who, 'GET', '/1/classes/Doc?count=1&order=n');
      expect(resultIds(all.body)).toEqual(idsOf(mine));
      expect(all.body.count).toBe(mine.length);
      const onlyCount = await send(who, 'GET', '/1/classes/Doc?count=1&limit=0');
      expect(onlyCount.body).toEqual({ results: [], count: mine.length });
      // A page of one after skipping one is the second readable doc, not a filtered-away slot.
      const page = await send(who, 'GET', '/1/classes/Doc?order=n&limit=1&skip=1');
      expect(page.body.results.map((r: { name: string }) => r.name)).toEqual(mine.length > 1 ? [mine[1]] : []);
      const sum = await send(who, 'GET', '/1/classes/Doc?sum=n');
      expect(sum.body.results[0]?._sumN ?? 0).toBe(mine.reduce((s, d) => s + N[d], 0));
      const where = encodeURIComponent(JSON.stringify({ name: 'sealed' }));
      const probe = await send(who, 'GET', `/1/classes/Doc?where=${where}&count=1&limit=0`);
      expect(probe.body.count).toBe(who === 'master' ? 1 : 0);
    });

    it('include leaves an unreadable target as a Pointer; inner queries cannot act as an oracle', async () => {
      const refs = await send(who, 'GET', '/1/classes/Ref?include=doc&limit=100');
      for (const ref of refs.body.results as Array<{ label: DocName; doc: Record<string, unknown> }>) {
        if (READERS[ref.label].includes(who)) expect(ref.doc).toMatchObject({ __type: 'Object', name: ref.label });
        else expect(ref.doc).toEqual({ __type: 'Pointer', className: 'Doc', objectId: ids[ref.label] });
      }
      const labels = async (where: unknown) =>
        ((await send(who, 'GET', `/1/classes/Ref?where=${encodeURIComponent(JSON.stringify(where))}`)).body.results as Array<{ label: string }>)
          .map((r) => r.label)
          .sort();
      const everyDoc = { className: 'Doc', where: {} };
      expect(await labels({ doc: { $inQuery: everyDoc } })).toEqual([...readable(who)].sort());
      expect(await labels({ doc: { $notInQuery: everyDoc } })).toEqual(DOCS.filter((d) => !READERS[d].includes(who)).sort());
      expect(await labels({ label: { $select: { query: everyDoc, key: 'name' } } })).toEqual([...readable(who)].sort());
      expect(await labels({ label: { $dontSelect: { query: everyDoc, key: 'name' } } })).toEqual(DOCS.filter((d) => !READERS[d].includes(who)).sort());
      const related = { $relatedTo: { object: { __type: 'Pointer', className: 'Box', objectId: boxId }, key: 'items' } };
      const inBox = await send(who, 'GET', `/1/classes/Doc?where=${encodeURIComponent(JSON.stringify(related))}`);
      // The box itself is readable by its owner only: others learn nothing of its members.
      const boxReaders: readonly Who[] = ['owner', 'master'];
      expect(resultIds(inBox.body)).toEqual(boxReaders.includes(who) ? idsOf(readable(who)) : []);
    });

    it('update, field ops, relation ops and delete: allowed where the ACL grants write, else 101 and nothing written', async () => {
      for (const doc of DOCS) {
        const path = `/1/classes/Doc/${ids[doc]}`;
        const before = (await send('master', 'GET', path)).body;
        const allowed = WRITERS[doc].includes(who);
        for (const body of [{ note: `by ${who}` }, { n: { __op: 'Increment', amount: 100 } }, { tags: { __op: 'AddUnique', objects: [who] } }]) {
          const res = await send(who, 'PUT', path, body);
          expect([doc, JSON.stringify(body), res.status, res.body.code]).toEqual([doc, JSON.stringify(body), allowed ? 200 : 404, allowed ? undefined : 101]);
        }
        const after = (await send('master', 'GET', path)).body;
        if (!allowed) expect(after).toEqual(before);
        else {
          // Undo, so every caller meets the same records.
          await send('master', 'PUT', path, { note: { __op: 'Delete' }, tags: { __op: 'Delete' }, n: N[doc] });
        }
        if (!allowed) {
          const del = await send(who, 'DELETE', path);
          expect([doc, del.status, del.body.code]).toEqual([doc, 404, 101]);
          expect((await send('master', 'GET', path)).status).toBe(200);
        }
      }
    });

    it('batch items are checked one by one with each item\'s own token', async () => {
      const requests = DOCS.map((doc) => ({ method: 'PUT', path: `/1/classes/Doc/${ids[doc]}`, body: { batchNote: who } }));
      const res = await send(who, 'POST', '/1/batch', { requests });
      expect(res.status).toBe(200);
      DOCS.forEach((doc, i) => {
        if (WRITERS[doc].includes(who)) expect(res.body[i]).toHaveProperty('success');
        else expect(res.body[i].error.code).toBe(101);
      });
      for (const doc of DOCS) {
        const stored = (await send('master', 'GET', `/1/classes/Doc/${ids[doc]}`)).body;
        expect(stored.batchNote === who).toBe(WRITERS[doc].includes(who));
        if (stored.batchNote !== undefined) await send('master', 'PUT', `/1/classes/Doc/${ids[doc]}`, { batchNote: { __op: 'Delete' } });
      }
    });
  });

  it("a batch item's own token acts as its user, whatever the request's token", async () => {
    const path = `/1/classes/Doc/${ids.priv}`;
    const res = await send('other', 'POST', '/1/batch', {
      requests: [
        { method: 'PUT', path, body: { viaToken: 1 }, token: tokens.get('owner') },
        { method: 'PUT', path, body: { viaToken: 2 } },
      ],
    });
    expect(res.body[0]).toHaveProperty('success');
    expect(res.body[1].error.code).toBe(101);
    expect((await send('master', 'GET', path)).body.viaToken).toBe(1);
    await send('master', 'PUT', path, { viaToken: { __op: 'Delete' } });
  });

  it('a new user is readable by everyone and writable only by itself', async () => {
    const user = await server.signUp({ username: 'fresh', password: 'pw' });
    const stored = (await send('master', 'GET', `/1/users/${user.objectId}`)).body;
    expect(stored.ACL).toEqual({ '*': { read: true }, [user.objectId]: { read: true, write: true } });
    expect((await send('other', 'GET', `/1/users/${user.objectId}`)).status).toBe(200);
    expect((await send('other', 'PUT', `/1/users/${user.objectId}`, { nick: 'x' })).body.code).toBe(206);
    expect((await server.as(user.sessionToken, 'PUT', `/1/users/${user.objectId}`, { nick: 'me' })).status).toBe(200);
  });

  it('a user who hides itself is hidden from lists and reads of other users', async () => {
    const user = await server.signUp({ username: 'hidden', password: 'pw' });
    const put = await server.as(user.sessionToken, 'PUT', `/1/users/${user.objectId}`, { ACL: { [user.objectId]: { read: true, write: true } } });
    expect(put.status).toBe(200);
    expect((await send('other', 'GET', `/1/users/${user.objectId}`)).body.code).toBe(101);
    const where = encodeURIComponent(JSON.stringify({ username: 'hidden' }));
    expect((await send('other', 'GET', `/1/users?where=${where}&count=1`)).body).toEqual({ results: [], count: 0 });
    expect((await server.as(user.sessionToken, 'GET', `/1/users?where=${where}`)).body.results).toHaveLength(1);
    expect((await send('master', 'GET', `/1/users?where=${where}`)).body.results).toHaveLength(1);
  });

  it('ACL values are validated (107) and write nothing', async () => {
    for (const acl of [[], 'x', { '*': { read: 'yes' } }, { '*': {} }, { 'role:bad!name': { read: true } }, { toString: { read: true } }]) {
      const res = await send('owner', 'POST', '/1/classes/Doc', { name: 'bad', ACL: acl });
      expect([JSON.stringify(acl), res.status, res.body.code]).toEqual([JSON.stringify(acl), 400, 107]);
    }
    const raw = '{"name":"bad","ACL":{"__proto__":{"read":true}}}';
    const proto = await server.request('POST', '/1/classes/Doc', { rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(proto.body.code).toBe(11004);
    const where = encodeURIComponent(JSON.stringify({ name: 'bad' }));
    expect((await send('master', 'GET', `/1/classes/Doc?where=${where}&count=1&limit=0`)).body.count).toBe(0);
  });

  it('role changes apply at once on this instance: removing a member revokes its access', async () => {
    const roles = await send('master', 'GET', `/1/roles?where=${encodeURIComponent(JSON.stringify({ name: 'editors' }))}`);
    const editors = roles.body.results[0].objectId as string;
    const member = { __type: 'Pointer', className: '_User', objectId: userIds.get('member')! };
    expect((await send('member', 'GET', `/1/classes/Doc/${ids.team}`)).status).toBe(200);
    expect((await send('master', 'PUT', `/1/roles/${editors}`, { users: { __op: 'RemoveRelation', objects: [member] } })).status).toBe(200);
    expect((await send('member', 'GET', `/1/classes/Doc/${ids.team}`)).status).toBe(404);
    expect((await send('master', 'PUT', `/1/roles/${editors}`, { users: { __op: 'AddRelation', objects: [member] } })).status).toBe(200);
    expect((await send('member', 'GET', `/1/classes/Doc/${ids.team}`)).status).toBe(200);
  });
});

describe('roles over HTTP', () => {
  let server: UsersServer;
  beforeAll(async () => {
    server = await startUsersServer();
  });
  afterAll(() => server.close());

  it('POST /1/roles: name required, valid, unique; set once; readable by id without inlined relations', async () => {
    const user = await server.signUp({ username: 'creator', password: 'pw' });
    const missing = await server.as(user.sessionToken, 'POST', '/1/roles', {});
    expect([missing.status, missing.body.code]).toEqual([400, 201]);
    for (const name of ['bad!', ' lead', 'x'.repeat(200), 42, "a'; DROP TABLE x; --"]) {
      const res = await server.as(user.sessionToken, 'POST', '/1/roles', { name });
      expect([name, res.body.code]).toEqual([name, 139]);
    }
    const created = await server.as(user.sessionToken, 'POST', '/1/roles', { name: 'Moderators' });
    expect(created.status).toBe(201);
    const again = await server.as(user.sessionToken, 'POST', '/1/roles', { name: 'Moderators' });
    expect([again.status, again.body.code]).toEqual([400, 139]);
    const read = await server.request('GET', `/1/roles/${created.body.objectId}`);
    expect(read.body).toMatchObject({ name: 'Moderators', objectId: created.body.objectId });
    expect(read.body).not.toHaveProperty('users');
    // Created without an ACL, even by a signed-in user: everyone reads, only the master key writes.
    expect(read.body.ACL).toEqual({ '*': { read: true } });
    // The name is set once, even for the master key; a caller who may not write the role gets 101
    // first, as for a missing role (the write decision comes before the policy's checks, D223).
    const rename = await server.request('PUT', `/1/roles/${created.body.objectId}`, { body: { name: 'Admins' }, auth: 'master' });
    expect(rename.body.code).toBe(11172);
    expect((await server.as(user.sessionToken, 'PUT', `/1/roles/${created.body.objectId}`, { name: 'Admins' })).body.code).toBe(101);
    const stranger = await server.signUp({ username: 'stranger', password: 'pw' });
    const self = { __type: 'Pointer', className: '_User', objectId: stranger.objectId };
    const join = await server.as(stranger.sessionToken, 'PUT', `/1/roles/${created.body.objectId}`, { users: { __op: 'AddRelation', objects: [self] } });
    expect(join.body.code).toBe(101);
    expect((await server.as(stranger.sessionToken, 'DELETE', `/1/roles/${created.body.objectId}`)).body.code).toBe(101);
    expect((await server.as(user.sessionToken, 'DELETE', `/1/roles/${created.body.objectId}`)).body.code).toBe(101);
    expect((await server.request('DELETE', `/1/roles/${created.body.objectId}`, { auth: 'master' })).body).toEqual({ msg: 'ok' });
  });

  it('two racing creates of one role name end with exactly one role', async () => {
    const results = await Promise.all(Array.from({ length: 20 }, () => server.request('POST', '/1/roles', { body: { name: 'Racers' }, auth: 'master' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).every((r) => r.body.code === 139)).toBe(true);
  });

  it('a cycle of child roles resolves without looping', async () => {
    const user = await server.signUp({ username: 'cyclist', password: 'pw' });
    const a = await server.request('POST', '/1/roles', { body: { name: 'A' }, auth: 'master' });
    const b = await server.request('POST', '/1/roles', { body: { name: 'B' }, auth: 'master' });
    const role = (id: string) => ({ __type: 'Pointer', className: '_Role', objectId: id });
    await server.request('PUT', `/1/roles/${a.body.objectId}`, { body: { roles: { __op: 'AddRelation', objects: [role(b.body.objectId)] } }, auth: 'master' });
    await server.request('PUT', `/1/roles/${b.body.objectId}`, {
      body: { roles: { __op: 'AddRelation', objects: [role(a.body.objectId)] }, users: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_User', objectId: user.objectId }] } },
      auth: 'master',
    });
    const doc = await server.request('POST', '/1/classes/Doc', { body: { x: 1, ACL: { 'role:A': { read: true } } }, auth: 'master' });
    expect((await server.as(user.sessionToken, 'GET', `/1/classes/Doc/${doc.body.objectId}`)).status).toBe(200);
  });
});
