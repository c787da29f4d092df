import { isSvcError, svcError } from '../core/errors.js';
import { assertTableName } from '../core/names.js';
import { type Json, encodeRecord } from '../core/wire-values.js';
import { createRouter } from '../http/router.js';
import type { Feature, RouteContext, RouteDef, ServiceContext, SessionResolver } from '../http/types.js';
import type { QueryFootprint } from '../query/parse.js';
import type { StorageAdapter } from '../storage/port.js';
import { type BatchRunner, parseBatch, runBatch } from './batch.js';
import { type ClassPolicy, ClassPolicyRegistry, type JsonObject, guardListFootprint, secretColumnOf } from './class-policy.js';
import { type ListDeps, expandRecordIncludes, handleList } from './list-service.js';
import { type RecordDeps, createRecord, deleteRecord, readRecord, updateRecord } from './record-ops.js';

export interface RecordsOptions {
  /** Shared policy registry (default: a new one, reachable as `feature.policies`). */
  readonly policies?: ClassPolicyRegistry;
  /** Resolves a batch item's own `token` (the users feature publishes one). */
  readonly sessions?: () => SessionResolver | undefined;
}

/** The records feature plus its class-policy hook. */
export interface RecordsFeature extends Feature {
  readonly policies: ClassPolicyRegistry;
  /** Sets the rules of one table (e.g. the users feature protects `_User`). */
  registerClassPolicy(className: string, policy: ClassPolicy): void;
}

/**
 * Records REST: `POST /1/classes/:table` (201 `{createdAt, objectId}` + Location),
 * `GET /1/classes/:table` (list, count, statistics: the records list service's `handleList`),
 * `GET|PUT|DELETE /1/classes/:table/:objectId` (the record with `keys`/`include`, `{updatedAt}`,
 * `{msg: "ok"}`; 101 with HTTP 404 when missing) and `POST /1/batch` (at most `settings.query.batchMax` items, run in order,
 * `{success}`/`{error}` per item, a malformed item answering 113 in its slot; `"transaction": true` runs them all-or-nothing).
 *
 * @example createService({ ..., features: [(ctx, registry) => createRecordsFeature(ctx, { sessions: () => registry.sessions })] })
 */
export function createRecordsFeature(ctx: ServiceContext, options: RecordsOptions = {}): RecordsFeature {
  const policies = options.policies ?? new ClassPolicyRegistry();
  const deps = (storage: StorageAdapter, inBatch: boolean): RecordDeps => ({
    storage,
    clock: ctx.clock,
    random: ctx.random,
    policies,
    inBatch,
  });
  const bodyOf = (rc: RouteContext): JsonObject => rc.body ?? {};
  const param = (rc: RouteContext, name: string): string => rc.params[name] ?? '';

  const create: RouteDef = {
    method: 'POST',
    path: '/1/classes/:table',
    auth: 'app',
    body: 'json',
    handler: (rc) => {
      const className = param(rc, 'table');
      assertTableName(className);
      const own = policies.resolve(className).create;
      return own ? own(rc) : createRecord(deps(ctx.storage, false), rc, className, bodyOf(rc));
    },
  };
  const listDeps = (rc: RouteContext, className: string): ListDeps => ({
    storage: ctx.storage,
    className,
    transformRecord: (name, record) => {
      const policy = policies.resolve(name);
      return policy.filterOutput ? policy.filterOutput({ request: rc, className: name, storage: ctx.storage, inBatch: false }, record) : record;
    },
  });
  const list: RouteDef = {
    method: 'GET',
    path: '/1/classes/:table',
    auth: 'app',
    body: 'none',
    handler: async (rc) => {
      const className = param(rc, 'table');
      assertTableName(className);
      const base = { request: rc, storage: ctx.storage, inBatch: false };
      const resolve = policies.resolve.bind(policies);
      // The listed table's guard first (a master-only table refuses before its query is parsed) ...
      await guardListFootprint(resolve, base, new Map([[className, new Set<string>()]]));
      // ... then every table the parsed plan touches, with the columns it names there.
      const guard = (footprint: QueryFootprint) => guardListFootprint(resolve, base, footprint);
      return handleList(rc, { ...listDeps(rc, className), guard, isSecretColumn: secretColumnOf(resolve) });
    },
  };
  const read: RouteDef = {
    method: 'GET',
    path: '/1/classes/:table/:objectId',
    auth: 'app',
    body: 'none',
    handler: async (rc) => {
      const className = param(rc, 'table');
      const record = await readRecord(deps(ctx.storage, false), rc, className, param(rc, 'objectId'));
      const body = encodeRecord(record, rc.app.settings.timeZone);
      await expandRecordIncludes(rc, listDeps(rc, className), body);
      return { body };
    },
  };
  const update: RouteDef = {
    method: 'PUT',
    path: '/1/classes/:table/:objectId',
    auth: 'app',
    body: 'json',
    handler: (rc) => updateRecord(deps(ctx.storage, false), rc, param(rc, 'table'), param(rc, 'objectId'), bodyOf(rc)),
  };
  const remove: RouteDef = {
    method: 'DELETE',
    path: '/1/classes/:table/:objectId',
    auth: 'app',
    body: 'none',
    handler: (rc) => deleteRecord(deps(ctx.storage, false), rc, param(rc, 'table'), param(rc, 'objectId')),
  };

  const runners = new Map<object, BatchRunner>([
    [create, async (rc, storage) => (await createRecord(deps(storage, true), rc, param(rc, 'table'), bodyOf(rc))).body as Json],
    [update, async (rc, storage) => (await updateRecord(deps(storage, true), rc, param(rc, 'table'), param(rc, 'objectId'), bodyOf(rc))).body as Json],
    [remove, async (rc, storage) => (await deleteRecord(deps(storage, true), rc, param(rc, 'table'), param(rc, 'objectId'))).body as Json],
  ]);
  const batchRouter = createRouter([create, update, remove]);
  const batch: RouteDef = {
    method: 'POST',
    path: '/1/batch',
    auth: 'app',
    body: 'json',
    handler: async (rc) => {
      const request = parseBatch(bodyOf(rc), rc.app.settings.query.batchMax);
      guardBatchPolicies(request.items.map((item) => (isSvcError(item) ? undefined : batchRouter.match(item.method, item.path)?.params.table)), policies);
      const outcomes = await runBatch(
        { router: batchRouter, runners, storage: ctx.storage, sessions: options.sessions ?? (() => undefined) },
        rc,
        request,
      );
      return { body: outcomes as Json };
    },
  };

  return {
    name: 'records',
    routes: [create, list, read, update, remove, batch],
    policies,
    registerClassPolicy: (className, policy) => policies.register(className, policy),
  };
}

/** Refuses the whole batch when an item targets a table whose policy forbids batches (11071). */
function guardBatchPolicies(tables: ReadonlyArray<string | undefined>, policies: ClassPolicyRegistry): void {
  for (const [index, table] of tables.entries()) {
    if (table !== undefined && !policies.resolve(table).allowBatch) throw svcError('batchTableRefused', table, index);
  }
}
