/**
 * The price of access control on SQLite (issue 15's target: ≥ 0.8x). Both sides run the same list
 * through the records service (parse, plan, SQL, encode) over 100k posts of which 60% carry an ACL:
 * ours as a signed-in user holding 3 roles (its ACL read filter pushed into the SQL), the reference
 * as the master key (no filter). The user's roles come from the role cache, as on a warm server.
 */
import Database from 'better-sqlite3';
import type { Application } from '../src/app/application.js';
import { type Caller, internalCaller } from '../src/app/caller.js';
import { dateValue, type StoredRecord } from '../src/core/values.js';
import type { RecordsService } from '../src/records/records-service.js';
import { createService } from '../src/service.js';
import { sqliteStorage } from '../src/storage/sqlite/index.js';
import { type BenchConfig, compare, prng } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';

const APP = { applicationId: 'benchacl', restApiKey: 'rest', masterKey: 'master' };
const POSTS = 100_000;
const CATEGORIES = 100;
const ROLES = ['r1', 'r2', 'r3'];
const USER_ID = 'benchUser01';

function aclOf(random: () => number): Record<string, { read?: true; write?: true }> | undefined {
  const pick = random();
  if (pick < 0.4) return undefined;
  if (pick < 0.7) return { '*': { read: true } };
  if (pick < 0.8) return { [USER_ID]: { read: true, write: true } };
  if (pick < 0.9) return { [`role:${ROLES[Math.floor(random() * ROLES.length)]}`]: { read: true } };
  return { someoneElse01: { read: true, write: true } };
}

/** The access group's world: 100k posts (60% with an ACL), a user with 3 roles, and the three workloads. */
export interface AccessWorld {
  readonly records: RecordsService;
  readonly member: Caller;
  readonly master: Caller;
  readonly workloads: ReadonlyArray<readonly [label: string, query: (i: number) => string]>;
  close(): Promise<void>;
}

export async function accessWorld(): Promise<AccessWorld> {
  const storage = sqliteStorage({ database: new Database(':memory:') });
  const service = createService({ storage, applications: [APP], captcha: false, users: false, realtime: false });
  try {
    const records = service.registry.records!.service as RecordsService;
    const app = service.applications.get(APP.applicationId) as Application;
    const master = internalCaller(app);
    // The user's roles: r1 and r2 hold it directly, r3 through r2 (a child role of r3).
    const user = { __type: 'Pointer', className: '_User', objectId: USER_ID };
    const r2 = await records.create(master, '_Role', { name: 'r2', users: { __op: 'AddRelation', objects: [user] } });
    await records.create(master, '_Role', { name: 'r1', users: { __op: 'AddRelation', objects: [user] } });
    await records.create(master, '_Role', { name: 'r3', roles: { __op: 'AddRelation', objects: [{ __type: 'Pointer', className: '_Role', objectId: String(r2.reply.objectId) }] } });
    const ref = { namespace: app.namespace, className: 'Post' };
    await storage.ensureColumns(ref, { category: { type: 'Number' }, score: { type: 'Number' }, title: { type: 'String' }, ACL: { type: 'Object' } });
    await storage.createIndex(ref, { name: 'by_category', columns: ['category'], unique: false });
    const random = prng(15);
    await storage.transaction(async (tx) => {
      for (let i = 0; i < POSTS; i++) {
        const at = dateValue(Date.UTC(2026, 0, 1) + i);
        const acl = aclOf(random);
        const record = { objectId: `p${String(i).padStart(9, '0')}`, createdAt: at, updatedAt: at, category: i % CATEGORIES, score: Math.floor(random() * 1000), title: `post ${i}` };
        await tx.insert(ref, (acl ? { ...record, ACL: acl } : record) as StoredRecord);
      }
    });
    const sessionUser = { objectId: USER_ID, record: { objectId: USER_ID } as StoredRecord, sessionId: 'bench' };
    const member = internalCaller(app, { master: false, user: sessionUser });
    const workloads: Array<readonly [string, (i: number) => string]> = [
      ['find by an indexed column, 100 of ~1k rows', (i) => `where={"category":${i % CATEGORIES}}&limit=100`],
      ['find by a range, ordered, limit 20', (i) => `where={"score":{"$gte":${(i * 37) % 990}}}&order=-score&limit=20`],
      ['count by an indexed column', (i) => `where={"category":${i % CATEGORIES}}&count=1&limit=0`],
    ];
    return { records, member, master, workloads, close: () => service.close() };
  } catch (error) {
    await service.close();
    throw error;
  }
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const world = await accessWorld();
  try {
    const { records, member, master } = world;
    const seen = await records.list(member, 'Post', new URLSearchParams('where={"category":7}&limit=1000&count=1'));
    config.log(`access: the user reads ${String(seen.count)} of the ${POSTS / CATEGORIES} posts of one category`);

    const rows: ResultRow[] = [];
    for (const [label, query] of world.workloads) {
      let a = 0;
      let b = 0;
      config.log(`access: ${label}`);
      const result = await compare(
        config,
        () => records.list(member, 'Post', new URLSearchParams(query(a++))),
        () => records.list(master, 'Post', new URLSearchParams(query(b++))),
      );
      rows.push(
        comparisonRow('access', `ACL-filtered ${label} (user with 3 roles) vs the same find with the master key`, 'same find, master key (no ACL filter)', result, 0.8, {
          unit: 'finds/s',
          note: '100k posts, 60% with an ACL; the filter is pushed into SQLite (limit, skip and count stay exact)',
        }),
      );
    }
    return rows;
  } finally {
    await world.close();
  }
}
