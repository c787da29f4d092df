import type { Caller } from '../app/caller.js';
import type { JsonObject } from '../core/wire-values.js';
import { handleList } from '../records/list-service.js';
import { listOperation, readViews } from '../records/read-restriction.js';
import { secretColumnOf } from '../records/records-service.js';
import type { UsersDeps } from './deps.js';
import { USER_CLASS } from './user-table.js';

/** Lists users for `GET /1/users`: the wire list parameters in, `{results}` (plus `count`) out. */
export type UserLister = (caller: Caller, query: URLSearchParams) => Promise<JsonObject>;

/** The page size of `GET /1/users` when `limit` is absent: the hosted service lists 100 users. */
export const USER_LIST_DEFAULT_LIMIT = 100;

/**
 * `GET /1/users`: the records list service over `_User` (where, order, limit, skip, keys,
 * include, count, statistics) with passwords removed from every listed and included record. The
 * parsed query passes the list guard of every table it touches, as on `/1/classes/:table`: queries
 * naming `password` are refused (102); inner queries over `_Session` need the master key (11006).
 * Lists 100 users when `limit` is absent.
 */
export function createUserLister(deps: UsersDeps): UserLister {
  return async (caller, params) => {
    await deps.ready(caller.app);
    const query = new URLSearchParams(params);
    if (!query.has('limit')) query.set('limit', String(Math.min(USER_LIST_DEFAULT_LIMIT, caller.app.settings.query.maxLimit)));
    const views = readViews(deps.storage, deps.access, await deps.access.accessOf(caller), caller.app.namespace);
    const { body } = await handleList(
      { app: caller.app, query },
      { storage: deps.storage, className: USER_CLASS, views, operation: listOperation(query), isSecretColumn: secretColumnOf(deps.access.tables) },
    );
    return body;
  };
}
