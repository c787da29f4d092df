import type { Application } from '../app/application.js';
import type { Caller } from '../app/caller.js';
import type { JsonObject } from '../core/wire-values.js';
import type { RecordsService } from '../records/index.js';
import { USER_CLASS } from './user-table.js';

/** Lists users for `GET /1/users`: the wire list parameters in, `{results}` (plus `count`) out. */
export type UserLister = (caller: Caller, query: URLSearchParams) => Promise<JsonObject>;

/** The page size of `GET /1/users` when `limit` is absent: the hosted service lists 100 users. */
export const USER_LIST_DEFAULT_LIMIT = 100;

/**
 * `GET /1/users`: the records feature's list over `_User` (where, order, limit, skip, keys, include,
 * count, statistics). Access is the records list's own decision, so passwords (a secret column of
 * `_User` in access/) are removed from every listed and included record, queries naming `password`
 * are refused (102) and inner queries over `_Session` need the master key (11006). Lists 100 users
 * when `limit` is absent.
 */
export function createUserLister(ready: (app: Application) => Promise<void>, records: Pick<RecordsService, 'list'>): UserLister {
  return async (caller, params) => {
    await ready(caller.app);
    const query = new URLSearchParams(params);
    if (!query.has('limit')) query.set('limit', String(Math.min(USER_LIST_DEFAULT_LIMIT, caller.app.settings.query.maxLimit)));
    return records.list(caller, USER_CLASS, query);
  };
}
