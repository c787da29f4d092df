import type { SessionResolver } from '../app/caller.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { RouteContext, RouteDef } from '../http/types.js';
import { commaList } from '../query/parse/options.js';
import type { StorageAdapter } from '../storage/port.js';
import { parseBatch, runBatch } from './batch.js';
import type { ClassPolicyRegistry } from './class-policy.js';
import type { RecordsService } from './records-service.js';

/** What the records routes serve: the records service, its policies, the batch's storage and sessions. */
export interface RecordsRouteDeps {
  readonly records: RecordsService;
  readonly policies: ClassPolicyRegistry;
  readonly storage: StorageAdapter;
  readonly sessions: () => SessionResolver | undefined;
}

const bodyOf = (rc: RouteContext): JsonObject => rc.body ?? {};
const param = (rc: RouteContext, name: string): string => rc.params[name] ?? '';

/**
 * The records REST routes, mapping requests onto the records service: `POST /1/classes/:table`
 * (201 `{createdAt, objectId}` + Location), `GET /1/classes/:table` (list, count, statistics),
 * `GET|PUT|DELETE /1/classes/:table/:objectId` (the record with `keys`/`include`, `{updatedAt}`,
 * `{msg: "ok"}`; 101 with HTTP 404 when missing) and `POST /1/batch`.
 */
export function recordsRoutes(deps: RecordsRouteDeps): RouteDef[] {
  const { records } = deps;
  return [
    {
      method: 'POST',
      path: '/1/classes/:table',
      auth: 'app',
      body: 'json',
      handler: async (rc) => {
        const className = param(rc, 'table');
        const result = await records.create(rc.caller, className, bodyOf(rc));
        if (result.kind === 'loggedIn') return { body: result.reply };
        return { status: 201, headers: { location: `${rc.baseUrl}/1/classes/${className}/${result.objectId}` }, body: result.reply };
      },
    },
    {
      method: 'GET',
      path: '/1/classes/:table',
      auth: 'app',
      body: 'none',
      handler: async (rc) => ({ body: await records.list(rc.caller, param(rc, 'table'), rc.query) }),
    },
    {
      method: 'GET',
      path: '/1/classes/:table/:objectId',
      auth: 'app',
      body: 'none',
      handler: async (rc) => {
        const include = rc.query.get('include');
        const options = { keys: commaList(rc.query, 'keys'), include: include === null ? [] : [include] };
        return { body: await records.get(rc.caller, param(rc, 'table'), param(rc, 'objectId'), options) };
      },
    },
    {
      method: 'PUT',
      path: '/1/classes/:table/:objectId',
      auth: 'app',
      body: 'json',
      handler: async (rc) => ({ body: await records.update(rc.caller, param(rc, 'table'), param(rc, 'objectId'), bodyOf(rc)) }),
    },
    {
      method: 'DELETE',
      path: '/1/classes/:table/:objectId',
      auth: 'app',
      body: 'none',
      handler: async (rc) => {
        await records.delete(rc.caller, param(rc, 'table'), param(rc, 'objectId'));
        return { body: { msg: 'ok' } };
      },
    },
    {
      method: 'POST',
      path: '/1/batch',
      auth: 'app',
      body: 'json',
      handler: async (rc) => {
        const batch = parseBatch(bodyOf(rc), rc.app.settings.query.batchMax);
        guardBatchPolicies(batch.items.map((item) => (isSvcError(item) ? undefined : item.op.className)), deps.policies);
        const outcomes = await runBatch({ records, storage: deps.storage, sessions: deps.sessions }, rc.caller, batch);
        return { body: outcomes as Json };
      },
    },
  ];
}

/** Refuses the whole batch when an item targets a table whose policy forbids batches (11071). */
function guardBatchPolicies(tables: ReadonlyArray<string | undefined>, policies: ClassPolicyRegistry): void {
  for (const [index, table] of tables.entries()) {
    if (table !== undefined && !policies.resolve(table).allowBatch) throw svcError('batchTableRefused', table, index);
  }
}
