import type { Application } from '../app/application.js';
import { type StoredRecord, dateValue } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { applyOps } from '../operators/apply.js';
import { newObjectId } from '../core/object-id.js';
import { actingAs, parseWriteWithAcl } from '../records/index.js';
import type { FieldOp, StorageAdapter } from '../storage/port.js';
import type { UsersDeps } from './deps.js';
import { type UserStore, createUserStore } from './user-store.js';
import { userRef } from './user-table.js';
import type { Caller } from '../app/caller.js';
import { newUserAcl } from '../access/acl.js';
import { assertNewColumnsAllowed } from '../access/new-columns.js';
import { userView } from './access.js';


const isRelationOp = (op: FieldOp) => op.kind === 'add_relation' || op.kind === 'remove_relation';

/**
 * The storage and user store whose writes `actor` makes (write hooks and events name it; see
 * `actingAs`); the deps' own when no caller made the write (a mailed link followed).
 */
export function actingStores(deps: UsersDeps, actor: Caller | undefined): { readonly storage: StorageAdapter; readonly users: UserStore } {
  const storage = actor ? actingAs(deps.storage, actor) : deps.storage;
  return storage === deps.storage ? deps : { storage, users: createUserStore(storage) };
}

/**
 * Inserts a user from a body already through `prepareUserWrite`, as `actor`'s create: refused, as
 * for any table, when `_User`'s class-level permissions close `create` to it (11171), or when the
 * body adds a column while the schema is locked (11180) or `addField` is closed to it (11171); the
 * master key passes. Nothing is written when refused. `extra` holds values the feature sets itself
 * (e.g. `mobilePhoneVerified: true` after a phone code). Unique conflicts, checked first and enforced
 * by the indexes, are 202/203/209.
 */
export async function insertUser(deps: UsersDeps, app: Application, body: JsonObject, extra: JsonObject = {}, actor?: Caller): Promise<StoredRecord> {
  await deps.ready(app);
  const ref = userRef(app);
  // A sign-up is a create of `_User`: its class-level permission decides, as for any table (11171).
  const view = actor ? await userView(deps, actor) : null;
  view?.assert('create');
  const objectId = newObjectId(deps.random);
  // A new user is readable by everyone and writable by itself unless the sign-up sends its own ACL.
  const withAcl = Object.hasOwn(body, ACL) ? { ...body, ...extra } : { ...body, ...extra, [ACL]: newUserAcl(objectId) as Json };
  const schema = await deps.storage.getSchema(ref);
  const plan = parseWriteWithAcl(withAcl, schema, app.settings.timeZone);
  if (view) assertNewColumnsAllowed(view, schema, plan.columns, 'create', app.settings.schema.locked);
  const now = dateValue(deps.clock.now());
  const base = { objectId, createdAt: now, updatedAt: now } as StoredRecord;
  const record = applyOps(base, plan.ops.filter((op) => !isRelationOp(op)));
  await deps.storage.ensureColumns(ref, plan.columns, app.settings.schema);
  const relationOps = plan.ops.filter(isRelationOp);
  const { storage, users } = actingStores(deps, actor);
  if (relationOps.length === 0) {
    await users.insert(app, record);
    return record;
  }
  // The insert and its relation members commit together (one write event), as records' createRecord does.
  const write = async (users: UserStore) => {
    await users.insert(app, record);
    return (await users.update(app, record.objectId, relationOps, now)) ?? record;
  };
  return storage.capabilities.transactions ? storage.transaction((tx) => write(createUserStore(tx))) : write(users);
}

/**
 * Applies a prepared body to a user atomically, as `actor`'s write when given; null when the user
 * does not exist. An actor's body that adds a column is refused as on any table (11180 under the
 * schema lock, 11171 when `_User`'s `addField` is closed to it) before anything is written; whether
 * the actor may update this user at all was asked before (`writableUser`), or the write is one the
 * feature makes itself (a phone code proved, a hash upgraded at login, a reset).
 */
export async function updateUserRecord(deps: UsersDeps, app: Application, objectId: string, body: JsonObject, actor?: Caller): Promise<StoredRecord | null> {
  await deps.ready(app);
  const ref = userRef(app);
  const schema = await deps.storage.getSchema(ref);
  const plan = parseWriteWithAcl(body, schema, app.settings.timeZone);
  if (actor) assertNewColumnsAllowed(await userView(deps, actor), schema, plan.columns, 'update', app.settings.schema.locked);
  if (Object.keys(plan.columns).length > 0) await deps.storage.ensureColumns(ref, plan.columns, app.settings.schema);
  return actingStores(deps, actor).users.update(app, objectId, plan.ops, dateValue(deps.clock.now()));
}

const ACL = 'ACL';
