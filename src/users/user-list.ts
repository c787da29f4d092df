import type { RouteContext, RouteResult } from '../http/types.js';
import { svcError } from '../core/errors.js';
import { handleList } from '../query/list-handler.js';
import { referencedClasses } from '../query/parse.js';
import type { UsersDeps } from './deps.js';
import { assertNoSecretColumns, hideSecrets } from './secret-columns.js';
import { SESSION_CLASS, USER_CLASS } from './user-table.js';

/** The page size of `GET /1/users` when `limit` is absent: the hosted service lists 100 users. */
export const USER_LIST_DEFAULT_LIMIT = 100;

/**
 * `GET /1/users`: the query engine's list handler over `_User` (where, order, limit, skip, keys,
 * include, count, statistics) with passwords removed from every listed and included record, and
 * queries naming `password` refused (102); inner queries over `_Session` need the master key.
 * Lists 100 users when `limit` is absent.
 */
export function createUserLister(deps: UsersDeps) {
  return async (rc: RouteContext): Promise<RouteResult> => {
    assertNoSecretColumns(rc.query);
    if (!rc.auth.isMaster && referencedClasses(rc.query.get('where')).includes(SESSION_CLASS)) throw svcError('masterKeyRequired');
    await deps.ready(rc.app);
    const query = new URLSearchParams(rc.query);
    if (!query.has('limit')) query.set('limit', String(Math.min(USER_LIST_DEFAULT_LIMIT, rc.app.settings.query.maxLimit)));
    return handleList({ ...rc, query }, { storage: deps.storage, className: USER_CLASS, transformRecord: hideSecrets });
  };
}
