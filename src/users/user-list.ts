import type { RouteContext, RouteResult } from '../http/types.js';
import { type ClassPolicy, guardListFootprint, secretColumnOf } from '../records/class-policy.js';
import { handleList } from '../records/list-service.js';
import type { UsersDeps } from './deps.js';
import { hideSecrets } from './secret-columns.js';
import { USER_CLASS } from './user-table.js';

/** The page size of `GET /1/users` when `limit` is absent: the hosted service lists 100 users. */
export const USER_LIST_DEFAULT_LIMIT = 100;

/**
 * `GET /1/users`: the records list service over `_User` (where, order, limit, skip, keys,
 * include, count, statistics) with passwords removed from every listed and included record. The
 * parsed query passes the list guard of every table it touches, as on `/1/classes/:table`: queries
 * naming `password` are refused (102); inner queries over `_Session` need the master key (11006).
 * Lists 100 users when `limit` is absent.
 */
export function createUserLister(deps: UsersDeps, resolve: (className: string) => ClassPolicy) {
  return async (rc: RouteContext): Promise<RouteResult> => {
    await deps.ready(rc.app);
    const query = new URLSearchParams(rc.query);
    if (!query.has('limit')) query.set('limit', String(Math.min(USER_LIST_DEFAULT_LIMIT, rc.app.settings.query.maxLimit)));
    const base = { request: rc, storage: deps.storage, inBatch: false };
    return handleList(
      { ...rc, query },
      {
        storage: deps.storage,
        className: USER_CLASS,
        transformRecord: hideSecrets,
        guard: (footprint) => guardListFootprint(resolve, base, footprint),
        isSecretColumn: secretColumnOf(resolve),
      },
    );
  };
}
