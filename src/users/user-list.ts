import type { RouteContext, RouteResult, ServiceContext } from '../http/types.js';
import { ALL_RECORDS } from '../query/plan.js';
import type { UsersDeps } from './deps.js';
import { userJson } from './user-output.js';
import { findPlan, userRef } from './user-table.js';

/**
 * `GET /1/users`: lists users (default 100 a page) without passwords.
 * TODO(users): switch to the query engine's handleList once src/query/list-handler.ts lands.
 */
export function createUserLister(_ctx: ServiceContext, deps: UsersDeps) {
  return async (rc: RouteContext): Promise<RouteResult> => {
    const app = rc.app;
    await deps.ready(app);
    const limits = app.settings.query;
    const limit = Math.min(Number(rc.query.get('limit') ?? limits.defaultLimit) || limits.defaultLimit, limits.maxLimit);
    const skip = Math.max(0, Number(rc.query.get('skip') ?? 0) || 0);
    const records = await deps.storage.find(userRef(app), { ...findPlan(ALL_RECORDS, limit), skip });
    return { body: { results: records.map((r) => userJson(app, r)) } };
  };
}
