import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Client, RT_APP, type RealtimeServer, jsonClient, startRealtimeServer } from '../realtime/harness.js';

/**
 * Keeps docs/access-control.md's table "Where it is enforced" true: every row is a path, and each
 * of its three cells (the table closed to the caller, a row it may not read, a protected field)
 * is checked against a real server. What a probe observes must be written in its cell, and every
 * code written in a cell must be observed; a row without a probe (or a probe without a row) fails.
 */
type Cell = 'closed' | 'unreadable' | 'protected';
type Observed = Array<string | number>;
type Probe = Partial<Record<Cell, () => Promise<Observed>>>;

const DOC = readFileSync(new URL('../../docs/access-control.md', import.meta.url), 'utf8');

function documentedRows(): Map<string, Record<Cell, string>> {
  const block = DOC.slice(DOC.indexOf('<!-- access-paths:start -->'), DOC.indexOf('<!-- access-paths:end -->'));
  const rows = new Map<string, Record<Cell, string>>();
  for (const line of block.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| path') && !l.startsWith('|---'))) {
    const cells = line.split(' | ').map((c) => c.replace(/^\| ?| ?\|$/g, '').trim());
    rows.set(cells[0]!.split(':')[0]!, { closed: cells[2]!, unreadable: cells[3]!, protected: cells[4]! });
  }
  return rows;
}

describe('docs/access-control.md: the table of read and write paths holds', () => {
  let server: RealtimeServer;
  let realtime: Client;
  const ids = { shut: '', open: '', hidden: '', refShut: '', refHidden: '', refOpen: '', box: '' };
  const anon = (method: string, path: string, body?: unknown) => server.request(method, path, { body });
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const q = (value: unknown) => encodeURIComponent(JSON.stringify(value));
  const pointer = (className: string, objectId: string) => ({ __type: 'Pointer', className, objectId });
  const code = (res: { body: { code?: number } }): Observed => (res.body.code === undefined ? [] : [res.body.code]);
  /** The next realtime message of `realtime` (an event, or a reply). */
  const next = () => realtime.json();
  /** Device tokens a push reached (the app allows client push; the probe device points to the hidden Doc). */
  const pushed: string[] = [];
  const push = async (where: object): Promise<Observed> => {
    pushed.length = 0;
    const res = await anon('POST', '/1/push', { data: { alert: 'probe' }, where: { deviceToken: 'probe-device-1', ...where } });
    await server.service.registry.push!.idle();
    return res.body.code === undefined ? (pushed.length === 0 ? ['not seen'] : []) : [res.body.code];
  };

  beforeAll(async () => {
    server = await startRealtimeServer({
      functions: { deployed: {} },
      applications: [{ ...RT_APP, featureSettings: { push: { clientPush: true } } }],
      push: { fcm: { kind: 'fcm', send: async (target) => (target.kind === 'fcm' && pushed.push(target.token), { outcome: 'sent' }) } },
    });
    // Shut: every operation master-only by its class-level permissions.
    ids.shut = (await master('POST', '/1/classes/Shut', { n: 1 })).body.objectId;
    await master('PUT', '/1/schemas/Shut', { classLevelPermissions: { get: {}, find: {}, count: {}, create: {}, update: {}, delete: {}, addField: {} } });
    // Doc: an open row and a row nobody but the master key reads; `secret` protected from everyone.
    ids.open = (await master('POST', '/1/classes/Doc', { n: 2, secret: 's' })).body.objectId;
    ids.hidden = (await master('POST', '/1/classes/Doc', { n: 40, secret: 's', ACL: {} })).body.objectId;
    await master('PUT', '/1/schemas/Doc', { classLevelPermissions: { protectedFields: { '*': ['secret'] } } });
    ids.refShut = (await master('POST', '/1/classes/Ref', { s: pointer('Shut', ids.shut) })).body.objectId;
    ids.refHidden = (await master('POST', '/1/classes/Ref', { p: pointer('Doc', ids.hidden) })).body.objectId;
    ids.refOpen = (await master('POST', '/1/classes/Ref', { p: pointer('Doc', ids.open) })).body.objectId;
    ids.box = (await master('POST', '/1/classes/Box', { items: { __op: 'AddRelation', objects: [pointer('Doc', ids.open)] }, ACL: {} })).body.objectId;
    await anon('POST', '/1/installations', { deviceType: 'android', deviceToken: 'probe-device-1', p: pointer('Doc', ids.hidden), s: pointer('Shut', ids.shut) });
    realtime = await jsonClient(server);
  });
  afterAll(async () => {
    realtime?.ws.terminate();
    await server?.close();
  });

  const refs = async (where: unknown) => {
    const res = await anon('GET', `/1/classes/Ref?where=${q(where)}`);
    return res.body.code !== undefined ? [res.body.code] : (res.body.results as Array<{ objectId: string }>).map((r) => r.objectId);
  };
  const listed = async (path: string): Promise<Observed> => {
    const res = await anon('GET', path);
    if (res.body.code !== undefined) return [res.body.code];
    const found = (res.body.results as Array<{ objectId: string; secret?: string }>).map((r) => r.objectId);
    return [...(found.includes(ids.hidden) ? [] : ['absent']), ...((res.body.results as Array<{ secret?: string }>).some((r) => 'secret' in r) ? [] : ['removed'])];
  };

  const probes: Record<string, Probe> = {
    get: {
      closed: async () => code(await anon('GET', `/1/classes/Shut/${ids.shut}`)),
      unreadable: async () => code(await anon('GET', `/1/classes/Doc/${ids.hidden}`)),
      protected: async () => ('secret' in (await anon('GET', `/1/classes/Doc/${ids.open}`)).body ? [] : ['removed']),
    },
    find: {
      closed: () => listed('/1/classes/Shut'),
      unreadable: async () => (await listed('/1/classes/Doc')).filter((t) => t === 'absent'),
      protected: async () => [...(await listed('/1/classes/Doc')).filter((t) => t === 'removed'), ...code(await anon('GET', `/1/classes/Doc?where=${q({ secret: 's' })}`))],
    },
    count: {
      closed: async () => code(await anon('GET', '/1/classes/Shut?count=1&limit=0')),
      unreadable: async () => ((await anon('GET', '/1/classes/Doc?count=1&limit=0')).body.count === 1 ? ['not counted'] : []),
      protected: async () => code(await anon('GET', `/1/classes/Doc?count=1&limit=0&where=${q({ secret: 's' })}`)),
    },
    statistics: {
      closed: async () => code(await anon('GET', '/1/classes/Shut?sum=n')),
      unreadable: async () => ((await anon('GET', '/1/classes/Doc?sum=n')).body.results[0]._sumN === 2 ? ['not aggregated'] : []),
      protected: async () => code(await anon('GET', `/1/classes/Doc?sum=n&where=${q({ secret: 's' })}`)),
    },
    BQL: {
      closed: async () => code(await anon('GET', `/1/cloudQuery?bql=${encodeURIComponent('select * from Shut')}`)),
      unreadable: async () => {
        const res = await anon('GET', `/1/cloudQuery?bql=${encodeURIComponent('select * from Doc')}`);
        return (res.body.results as Array<{ objectId: string }>).some((r) => r.objectId === ids.hidden) ? [] : ['absent'];
      },
      protected: async () => code(await anon('GET', `/1/cloudQuery?bql=${encodeURIComponent("select * from Doc where secret = 's'")}`)),
    },
    include: {
      closed: async () => [(await anon('GET', `/1/classes/Ref/${ids.refShut}?include=s`)).body.s.__type],
      unreadable: async () => [(await anon('GET', `/1/classes/Ref/${ids.refHidden}?include=p`)).body.p.__type],
      protected: async () => {
        const p = (await anon('GET', `/1/classes/Ref/${ids.refOpen}?include=p`)).body.p;
        return p.__type === 'Object' && !('secret' in p) ? ['removed'] : [];
      },
    },
    'inner query': {
      closed: async () => refs({ s: { $inQuery: { className: 'Shut', where: {} } } }),
      unreadable: async () => ((await refs({ p: { $inQuery: { className: 'Doc', where: {} } } })).includes(ids.refHidden) ? [] : ['not seen']),
      protected: async () => refs({ p: { $inQuery: { className: 'Doc', where: { secret: 's' } } } }),
    },
    related: {
      closed: async () => code(await anon('GET', `/1/classes/Doc?where=${q({ $relatedTo: { object: pointer('Shut', ids.shut), key: 'items' } })}`)),
      unreadable: async () => {
        const res = await anon('GET', `/1/classes/Doc?where=${q({ $relatedTo: { object: pointer('Box', ids.box), key: 'items' } })}`);
        return res.body.results.length === 0 ? ['relates nothing'] : [];
      },
    },
    push: {
      closed: () => push({ s: { $inQuery: { className: 'Shut', where: {} } } }),
      unreadable: () => push({ p: { $inQuery: { className: 'Doc', where: {} } } }),
      protected: () => push({ p: { $inQuery: { className: 'Doc', where: { secret: 's' } } } }),
    },
    realtime: {
      closed: async () => {
        realtime.send({ op: 'subscribe', id: 'shut', action: 'updateTable', tableName: 'Shut' });
        return [(await next()).code];
      },
      unreadable: async () => {
        realtime.send({ op: 'subscribe', id: 'doc', action: 'updateTable', tableName: 'Doc' });
        expect((await next()).op).toBe('subscribed');
        await master('POST', '/1/classes/Doc', { n: 3, secret: 's', ACL: {}, mark: 'hidden' });
        await master('POST', '/1/classes/Doc', { n: 4, secret: 's', mark: 'open' });
        const event = await next();
        realtime.send({ op: 'unsubscribe', id: 'doc' });
        await next();
        return [...(event.data.mark === 'open' ? ['no event'] : []), ...('secret' in event.data ? [] : ['removed'])].slice(0, 1);
      },
      protected: async () => {
        realtime.send({ op: 'subscribe', id: 'doc2', action: 'updateTable', tableName: 'Doc' });
        await next();
        await master('POST', '/1/classes/Doc', { n: 5, secret: 's' });
        const event = await next();
        realtime.send({ op: 'subscribe', id: 'where', where: { secret: 's' }, tableName: 'Doc' });
        const refused = await next();
        return [...('secret' in event.data ? [] : ['removed']), refused.code];
      },
    },
    update: {
      closed: async () => code(await anon('PUT', `/1/classes/Shut/${ids.shut}`, { n: 9 })),
      unreadable: async () => code(await anon('PUT', `/1/classes/Doc/${ids.hidden}`, { n: 9 })),
    },
    // An old-password change is an update of the user's row (D225): `_User` closed to update, or a row whose ACL refuses the user a write.
    'password change': {
      closed: async () => {
        const user = (await anon('POST', '/1/users', { username: 'pc-closed', password: 'old-pw' })).body;
        await master('PUT', '/1/schemas/_User', { classLevelPermissions: { update: {} } });
        try {
          return code(await server.request('PUT', '/1/updatePassword', { body: { oldPassword: 'old-pw', newPassword: 'new-pw' }, headers: { 'X-Svc-Session-Token': user.sessionToken } }));
        } finally {
          await master('PUT', '/1/schemas/_User', { classLevelPermissions: null });
        }
      },
      unreadable: async () => {
        const user = (await anon('POST', '/1/users', { username: 'pc-locked', password: 'old-pw' })).body;
        await master('PUT', `/1/users/${user.objectId}`, { ACL: { '*': { read: true } } });
        const body = { oldPassword: 'old-pw', newPassword: 'new-pw' };
        const res = await server.request('PUT', `/1/updateUserPassword/${user.objectId}`, { body, headers: { 'X-Svc-Session-Token': user.sessionToken } });
        const kept = (await anon('GET', '/1/login?username=pc-locked&password=old-pw')).status === 200;
        return [...code(res), ...(kept ? ['nothing written'] : [])];
      },
    },
    delete: {
      closed: async () => code(await anon('DELETE', `/1/classes/Shut/${ids.shut}`)),
      unreadable: async () => code(await anon('DELETE', `/1/classes/Doc/${ids.hidden}`)),
    },
    create: {
      closed: async () => code(await anon('POST', '/1/classes/Shut', { n: 2 })),
    },
    batch: {
      closed: async () => [(await anon('POST', '/1/batch', { requests: [{ method: 'PUT', path: `/1/classes/Shut/${ids.shut}`, body: { n: 3 } }] })).body[0].error.code],
      unreadable: async () => [(await anon('POST', '/1/batch', { requests: [{ method: 'DELETE', path: `/1/classes/Doc/${ids.hidden}` }] })).body[0].error.code],
    },
  };

  it('has a probe for every documented path and a documented path for every probe', () => {
    expect([...documentedRows().keys()].sort()).toEqual(Object.keys(probes).sort());
  });

  for (const [path, probe] of Object.entries(probes)) {
    it(`${path}: each cell is what the server does`, async () => {
      const row = documentedRows().get(path)!;
      for (const cell of ['closed', 'unreadable', 'protected'] as const) {
        const written = row[cell];
        const run = probe[cell];
        if (!run) {
          expect([path, cell, written]).toEqual([path, cell, '-']);
          continue;
        }
        const observed = await run();
        expect([path, cell, observed.length > 0]).toEqual([path, cell, true]);
        for (const token of observed) expect([path, cell, written.includes(typeof token === 'number' ? `**${token}**` : token)]).toEqual([path, cell, true]);
        for (const documented of written.matchAll(/\*\*(\d+)\*\*/g)) expect([path, cell, observed]).toEqual([path, cell, expect.arrayContaining([Number(documented[1])])]);
      }
    });
  }
});
