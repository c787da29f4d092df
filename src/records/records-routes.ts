import type { SessionResolver } from '../app/caller.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { CREATED_REPLY as CREATED, LIST_REPLY as LIST, OK_REPLY as OK, RECORD_REPLY as RECORD, UPDATED_REPLY as UPDATED } from '../http/reply-schemas.js';
import type { RouteContext, RouteDef } from '../features/routes.js';
import { commaList } from '../query/parse/options.js';
import type { StorageAdapter } from '../storage/port.js';
import { parseBatch, runBatch } from './batch.js';
import { IMPORT_MAX_RECORDS } from './record-import.js';
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

const IMPORT_REPLY = {
  type: 'object',
  required: ['inserted', 'existing'],
  properties: { inserted: { type: 'integer', minimum: 0 }, existing: { type: 'integer', minimum: 0 } },
  additionalProperties: false,
} as const;

/** Reply shapes of the record routes (for `/1/openapi.json`); dates are the wire's `yyyy-MM-dd HH:mm:ss`. */
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
    ...tableRoutes(records, '/1/classes/:table', (rc) => param(rc, 'table'), (className) => `/1/classes/${className}`),
    {
      method: 'POST',
      path: '/1/batch',
      auth: 'app',
      body: 'json',
      summary: 'Runs up to the batch size of create, update and delete requests, optionally in one transaction',
      responses: { 200: { type: 'array', items: { type: 'object', minProperties: 1, maxProperties: 1 } } },
      handler: async (rc) => {
        const batch = parseBatch(bodyOf(rc), rc.app.settings.query.batchMax);
        guardBatchPolicies(batch.items.map((item) => (isSvcError(item) ? undefined : item.op.className)), deps.policies);
        const outcomes = await runBatch({ records, storage: deps.storage, sessions: deps.sessions }, rc.caller, batch);
        return { body: outcomes as Json };
      },
    },
    {
      method: 'POST',
      path: '/1/import/:table',
      auth: 'master',
      body: 'json',
      summary: `Restores up to ${IMPORT_MAX_RECORDS} exported records with their own objectId, times, ACL and relation members; existing ids are skipped (svcbase's own route, used by \`svcbase import\` and \`svcbase migrate\`)`,
      responses: { 200: IMPORT_REPLY },
      handler: async (rc) => {
        const list = bodyOf(rc)['records'];
        if (!Array.isArray(list)) throw svcError('importRefused', 'the body must be {"records": [...]}');
        return { body: { ...(await records.importRecords(rc.caller, param(rc, 'table'), list)) } };
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

/**
 * The five record routes of one table path: `POST <path>` (201 + Location), `GET <path>` (list,
 * count, statistics), `GET|PUT|DELETE <path>/:objectId`, mapped onto the records service. `/1/classes/:table`
 * takes the table from the path, `/1/roles` is `_Role`.
 */
export function tableRoutes(
  records: RecordsService,
  path: string,
  classOf: (rc: RouteContext) => string,
  locationOf: (className: string) => string,
): RouteDef[] {
  const item = `${path}/:objectId`;
  return [
    {
      method: 'POST',
      path,
      auth: 'app',
      body: 'json',
      summary: 'Creates a record (201 with Location)',
      responses: { 201: CREATED },
      handler: async (rc) => {
        const className = classOf(rc);
        const result = await records.create(rc.caller, className, bodyOf(rc));
        if (result.kind === 'loggedIn') return { body: result.reply };
        return { status: 201, headers: { location: `${rc.baseUrl}${locationOf(className)}/${result.objectId}` }, body: result.reply };
      },
    },
    {
      method: 'GET',
      path,
      auth: 'app',
      body: 'none',
      summary: 'Lists records: where, order, limit, skip, keys, include, count, statistics',
      responses: { 200: LIST },
      handler: async (rc) => ({ body: await records.list(rc.caller, classOf(rc), rc.query) }),
    },
    {
      method: 'GET',
      path: item,
      auth: 'app',
      body: 'none',
      summary: 'Reads a record (keys, include)',
      responses: { 200: RECORD },
      handler: async (rc) => {
        const include = rc.query.get('include');
        const options = { keys: commaList(rc.query, 'keys'), include: include === null ? [] : [include] };
        return { body: await records.get(rc.caller, classOf(rc), param(rc, 'objectId'), options) };
      },
    },
    {
      method: 'PUT',
      path: item,
      auth: 'app',
      body: 'json',
      summary: 'Updates a record: values and __op operations',
      responses: { 200: UPDATED },
      handler: async (rc) => ({ body: await records.update(rc.caller, classOf(rc), param(rc, 'objectId'), bodyOf(rc)) }),
    },
    {
      method: 'DELETE',
      path: item,
      auth: 'app',
      body: 'none',
      summary: 'Deletes a record',
      responses: { 200: OK },
      handler: async (rc) => {
        await records.delete(rc.caller, classOf(rc), param(rc, 'objectId'));
        return { body: { msg: 'ok' } };
      },
    },
  ];
}
