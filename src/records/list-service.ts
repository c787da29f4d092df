import { svcError } from '../core/errors.js';
import { isValidTableName } from '../core/names.js';
import { encodeRecord, type Json, type JsonObject } from '../core/wire-values.js';
import type { Application } from '../app/application.js';
import { MAX_INNER_QUERIES } from '../query/parse/context.js';
import { type IncludePath, decodeWhereParam, listQueryFootprint, parseListQuery, referencedClasses } from '../query/parse.js';
import type { TableSchema } from '../query/plan.js';
import { encodeStatisticsRow } from '../query/statistics-output.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';
import { expandIncludes, type IncludeDeps } from './include.js';
import type { ReadOperation } from '../access/class-permissions.js';
import type { TableAccess } from '../access/table-access.js';
import { type ReadViews, assertNoHiddenColumns, restrictListQuery } from './read-restriction.js';
import { ListPlanCache, type ListPlanEntry } from './list-plan-cache.js';


/**
 * What a list reads of its call: the caller's application and the wire query parameters
 * (`where`, `order`, `limit`, `keys`, `include`, `count`, statistics).
 */
export interface ListRequest {
  readonly app: Pick<Application, 'namespace' | 'settings'>;
  readonly query: URLSearchParams;
}

/** The encoded reply of a list: `{"results": [...]}` plus `"count"` when asked. */
export interface ListResult {
  readonly body: JsonObject;
}

/** What a list needs besides the request: storage, the table and the caller's access views. */
export interface ListDeps {
  readonly storage: StorageAdapter;
  /** The queried table (`GameScore`; `_User` for `GET /1/users`). */
  readonly className: string;
  /** The caller's access views: every table the query reads is checked, filtered and projected by them. */
  readonly views: ReadViews;
  /** The listed table's view when it is not `views.view(className)`: a client push's audience (`audienceView`). */
  readonly top?: TableAccess;
  /** `find` (lists and statistics) or `count` (a bare `count=1&limit=0`): the listed table's operation. */
  readonly operation: ReadOperation;
  /** Columns no query may name, whoever asks, refused while parsing (see `ParseContext.isSecretColumn`). */
  readonly isSecretColumn?: (className: string, column: string) => boolean;
  /** Parsed queries kept across requests (the records service's one cache); none: every list parses. */
  readonly plans?: ListPlanCache;
}

/** Most distinct class names whose schemas one where may make us fetch before parsing. */
const MAX_PREFETCHED_CLASSES = 64;

/** Fetches the schemas a query names (the table and its inner queries' tables) into `schemas`. */
async function loadSchemas(storage: StorageAdapter, namespace: string, names: readonly string[], schemas: Map<string, TableSchema | null>): Promise<Map<string, TableSchema | null>> {
  for (const className of names) {
    if (schemas.has(className) || !isValidTableName(className)) continue;
    schemas.set(className, await storage.getSchema({ namespace, className }));
  }
  return schemas;
}

/**
 * The list's parsed query, its footprint and the schemas its parse read: kept from an earlier
 * identical list when every one of those schemas is unchanged, else parsed (and kept).
 */
async function parsedList(ctx: ListRequest, deps: ListDeps): Promise<ListPlanEntry> {
  const { app } = ctx;
  const { storage, className, plans } = deps;
  const namespace = app.namespace;
  const secret = deps.isSecretColumn;
  const key = plans ? ListPlanCache.keyOf(namespace, className, ctx.query) : null;
  // Schemas read to check a kept plan are reused by the parse that replaces it.
  const read = new Map<string, TableSchema | null>();
  const kept = plans && key !== null ? plans.get(key, app.settings, secret) : undefined;
  if (kept) {
    let same = true;
    for (const [name, schema] of kept.inputs.schemas) {
      const current = await storage.getSchema({ namespace, className: name });
      read.set(name, current);
      if (current !== schema) same = false;
    }
    if (same) return kept;
  }
  // The where is decoded once: its inner queries' class names first (their schemas are loaded before
  // the synchronous parse), then the same object is parsed into the plan.
  const decoded = decodeWhereParam(ctx.query.get('where'), app.settings);
  const named = decoded.where ? referencedClasses(decoded.where) : [];
  const others = named.slice(0, MAX_PREFETCHED_CLASSES);
  const schemas = await loadSchemas(storage, namespace, others.length === 0 ? [className] : [className, ...others], read);
  const schema = (name: string): TableSchema | null => {
    // A table past the prefetch bound would parse as empty: refuse instead (fail closed).
    if (!schemas.has(name) && named.length > others.length) throw svcError('tooManyInnerQueries', MAX_INNER_QUERIES);
    return schemas.get(name) ?? null;
  };
  const query = parseListQuery(ctx.query, { className, schema, settings: app.settings, ...(secret ? { isSecretColumn: secret } : {}) }, decoded);
  const entry: ListPlanEntry = { inputs: { settings: app.settings, isSecretColumn: secret, schemas }, query, footprint: listQueryFootprint(query, className) };
  if (plans && key !== null) plans.set(key, entry.inputs, entry);
  return entry;
}

/**
 * The records list service behind `GET /1/classes/:table` (and `GET /1/users`): parses the query once, runs it on the storage
 * adapter and encodes the reply:
 * - find: `{"results": [...]}` plus `"count"` with `count=1`; `include` expands Pointers;
 * - `count=1&limit=0`: `{"results": [], "count": n}`;
 * - statistics: `{"results": [rows]}`.
 * A table that does not exist yet lists nothing. Errors are SvcErrors (see `parseListQuery`).
 */
export async function handleList(ctx: ListRequest, deps: ListDeps): Promise<ListResult> {
  const { app } = ctx;
  const { storage, className } = deps;
  if (!isValidTableName(className)) throw svcError('invalidClassName', className);
  const namespace = app.namespace;
  const timeZone = app.settings.timeZone;
  // A table the caller may not list refuses before its query is parsed.
  const view = deps.top ?? (await deps.views.view(className));
  view.assert(deps.operation);
  const plan = await parsedList(ctx, deps);
  const parsed = plan.query;
  const query = await restrictListQuery(parsed, view, deps.operation, deps.views);
  await assertNoHiddenColumns(plan.footprint, view, deps.views);
  const table: TableRef = { namespace, className };
  const exists = plan.inputs.schemas.get(className) !== null;
  const budget = { budgetMs: app.settings.query.budgetMs };
  if (query.kind === 'count') {
    return { body: { results: [], count: exists ? await storage.count(table, query.where, budget) : 0 } };
  }
  if (query.kind === 'aggregate') {
    const rows = exists ? await storage.aggregate(table, query.plan, budget) : [];
    return { body: { results: rows.map((row) => encodeStatisticsRow(row, query.plan, timeZone)) } };
  }
  const records = exists ? await storage.find(table, query.plan, budget) : [];
  const results: JsonObject[] = [];
  for (const record of records) results.push(encodeRecord(view.project(record), timeZone));
  if (query.include.length > 0) await expandIncludes(results, query.include, includeDeps(ctx.app, deps));
  const body: JsonObject = { results };
  if (query.count) body.count = exists ? await storage.count(table, query.plan.where, budget) : 0;
  return { body };
}

function includeDeps(app: ListRequest['app'], deps: Pick<ListDeps, 'storage' | 'views'>): IncludeDeps {
  return { storage: deps.storage, namespace: app.namespace, timeZone: app.settings.timeZone, views: deps.views, maxBytes: app.settings.query.maxIncludeBytes };
}

/**
 * Applies the parsed `include` paths of a single-record read to the encoded record, in place. A
 * no-op without paths.
 */
export async function expandRecordIncludes(
  app: ListRequest['app'],
  paths: readonly IncludePath[],
  deps: Pick<ListDeps, 'storage' | 'views'>,
  record: JsonObject,
): Promise<void> {
  if (paths.length > 0) await expandIncludes([record], paths, includeDeps(app, deps));
}
