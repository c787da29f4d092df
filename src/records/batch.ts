import { type SvcError, isSvcError, svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import type { Router } from '../http/router.js';
import type { RouteContext, SessionResolver, SessionUser } from '../http/types.js';
import type { StorageAdapter } from '../storage/port.js';
import type { JsonObject } from './class-policy.js';
import { USER_TABLE } from './class-policy.js';

/** One validated batch item. */
export interface BatchItem {
  readonly method: 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body: JsonObject;
  /** The item's session token (`token`), else the caller's. */
  readonly token: string | null;
}

export interface BatchRequest {
  /** One entry per request: the validated item, or the error it answers without running (113). */
  readonly items: ReadonlyArray<BatchItem | SvcError>;
  /** Opt-in all-or-nothing mode (`"transaction": true`). */
  readonly transaction: boolean;
}

const METHODS = new Set(['POST', 'PUT', 'DELETE']);
const USER_PATH = /^\/1\/(users(\/|$)|classes\/_User(\/|$))/;

/**
 * Validates a batch envelope before anything runs: `requests` not an array is 112; more than `max`
 * items is 114; a non-boolean `transaction` is 11005; an item on the user table (`/1/users`,
 * `/1/classes/_User`) refuses the whole batch (11071, the seed's rule). A malformed item — not an
 * object with a method (POST, PUT or DELETE, any case), a `/1/` path without a query string, an object
 * body (or none) and a string token (or none) — only fails itself: its slot answers 113.
 */
export function parseBatch(body: JsonObject, max: number): BatchRequest {
  const requests = body.requests;
  if (!Array.isArray(requests)) throw svcError('batchNotArray');
  if (requests.length > max) throw svcError('batchTooLarge', max);
  const transaction = body.transaction ?? false;
  if (typeof transaction !== 'boolean') throw svcError('invalidParameter', 'transaction must be a boolean');
  const items = requests.map((item, index) => parseItem(item, index));
  return { items, transaction };
}

function parseItem(item: Json, index: number): BatchItem | SvcError {
  const bad = (why: string) => svcError('batchItemInvalid', `item ${index}: ${why}`);
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return bad('not an object');
  const { method, path, body, token } = item;
  if (typeof method !== 'string' || !METHODS.has(method.toUpperCase())) return bad('method must be POST, PUT or DELETE');
  if (typeof path !== 'string' || !path.startsWith('/1/') || path.includes('?') || path.length > 512) return bad('path must be a /1/ path');
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) return bad('body must be an object');
  if (token !== undefined && token !== null && typeof token !== 'string') return bad('token must be a string');
  if (USER_PATH.test(path.replace(/\/{2,}/g, '/'))) throw svcError('batchTableRefused', USER_TABLE, index);
  return {
    method: method.toUpperCase() as BatchItem['method'],
    path,
    body: (body ?? {}) as JsonObject,
    token: typeof token === 'string' && token !== '' ? token : null,
  };
}

/** Runs one routed item against the given storage; its result body becomes `success`. */
export type BatchRunner = (ctx: RouteContext, storage: StorageAdapter) => Promise<Json>;

export interface BatchDeps {
  readonly router: Router;
  /** The runner behind each batchable route (routes are matched by the router, then looked up here). */
  readonly runners: ReadonlyMap<object, BatchRunner>;
  readonly storage: StorageAdapter;
  readonly sessions: () => SessionResolver | undefined;
}

type Outcome = { success: Json } | { error: { code: number; error: string } };
type Routed = { ctx: RouteContext; runner: BatchRunner } | SvcError;

/**
 * Runs batch items in order, each through the same routing and validation as a single request with
 * the caller's credentials (an item's `token` replaces the session token). Returns one outcome per
 * item: `{success}` or `{error: {code, error}}`; a malformed item or one no batchable route accepts
 * (e.g. `POST /1/classes/T/<id>`) answers 113 in its slot and the others still run. With
 * `transaction`, all items run in one storage transaction and the first failure, a malformed item
 * included, rolls every item back and fails the request (11070).
 */
export async function runBatch(deps: BatchDeps, request: RouteContext, batch: BatchRequest): Promise<Outcome[]> {
  const routed = batch.items.map((item, index): Routed => {
    if (isSvcError(item)) return item;
    const match = deps.router.match(item.method, item.path);
    const runner = match && deps.runners.get(match.route);
    if (!match || !runner) return svcError('batchItemInvalid', `item ${index}: no batchable route for ${item.method} ${item.path}`);
    return { ctx: itemContext(deps, request, item, match.params), runner };
  });
  if (!batch.transaction) {
    const outcomes: Outcome[] = [];
    for (const entry of routed) {
      outcomes.push(isSvcError(entry) ? { error: entry.toJSON() } : await settle(() => entry.runner(entry.ctx, deps.storage)));
    }
    return outcomes;
  }
  const refused = routed.findIndex(isSvcError);
  if (refused >= 0) throw transactionFailed(refused, routed[refused] as SvcError);
  if (!deps.storage.capabilities.transactions) {
    throw svcError('invalidParameter', `the storage adapter '${deps.storage.name}' does not support transactions`);
  }
  return deps.storage.transaction(async (tx) => {
    const outcomes: Outcome[] = [];
    for (const [index, entry] of routed.entries()) {
      const { ctx, runner } = entry as Exclude<Routed, SvcError>;
      try {
        outcomes.push({ success: await runner(ctx, tx) });
      } catch (error) {
        if (!isSvcError(error)) throw error;
        throw transactionFailed(index, error);
      }
    }
    return outcomes;
  });
}

function transactionFailed(index: number, cause: SvcError): SvcError {
  return svcError('transactionFailed', `${index} (code ${cause.code}: ${cause.message})`);
}

async function settle(run: () => Promise<Json>): Promise<Outcome> {
  try {
    return { success: await run() };
  } catch (error) {
    if (isSvcError(error)) return { error: error.toJSON() };
    throw error;
  }
}

function itemContext(deps: BatchDeps, request: RouteContext, item: BatchItem, params: Record<string, string>): RouteContext {
  const token = item.token ?? request.auth.sessionToken;
  let user: Promise<SessionUser | null> | undefined;
  return {
    app: request.app,
    auth: { ...request.auth, sessionToken: token },
    method: item.method,
    params,
    query: new URLSearchParams(),
    body: item.body,
    rawBody: null,
    headers: request.headers,
    remoteAddress: request.remoteAddress,
    baseUrl: request.baseUrl,
    user() {
      if (token === request.auth.sessionToken) return request.user();
      const resolver = deps.sessions();
      if (!token || !resolver) return Promise.resolve(null);
      return (user ??= resolver.resolve(request.app, token));
    },
  };
}
