import { type SvcError, isSvcError, svcError } from '../core/errors.js';
import { type Caller, type SessionResolver, sessionCaller } from '../app/caller.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { StorageAdapter } from '../storage/port.js';
import { USER_TABLE } from './class-policy.js';
import type { RecordWrites } from './records-service.js';
import { copyOf } from '../core/copy.js';

/** A batch item's operation on the records service, parsed from its method and path. */
export type BatchOperation =
  | { readonly kind: 'create'; readonly className: string }
  | { readonly kind: 'update'; readonly className: string; readonly objectId: string }
  | { readonly kind: 'delete'; readonly className: string; readonly objectId: string };

/** One validated batch item. */
export interface BatchItem {
  readonly method: 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body: JsonObject;
  /** The item's session token (`token`), else the caller's. */
  readonly token: string | null;
  /** What the item does: `POST /1/classes/T` creates, `PUT|DELETE /1/classes/T/id` update or delete. */
  readonly op: BatchOperation;
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
  const verb = method.toUpperCase() as BatchItem['method'];
  const op = operationOf(verb, path);
  if (!op) return svcError('batchItemInvalid', `item ${index}: no batchable route for ${verb} ${path}`);
  return { method: verb, path, body: (body ?? {}) as JsonObject, token: typeof token === 'string' && token !== '' ? token : null, op };
}

/**
 * The operation of a method and a raw `/1/classes/...` path (empty segments ignored, segments
 * percent-decoded), or null when it names none: `POST /1/classes/:table`, `PUT|DELETE
 * /1/classes/:table/:objectId`.
 */
function operationOf(method: BatchItem['method'], path: string): BatchOperation | null {
  const parts = path.split('/').filter((s) => s.length > 0);
  if (parts[0] !== '1' || parts[1] !== 'classes') return null;
  const decoded: string[] = [];
  for (const part of parts.slice(2)) {
    try {
      decoded.push(decodeURIComponent(part));
    } catch {
      return null;
    }
  }
  const [className, objectId] = decoded;
  if (method === 'POST') return decoded.length === 1 ? { kind: 'create', className: className! } : null;
  if (decoded.length !== 2) return null;
  return method === 'PUT' ? { kind: 'update', className: className!, objectId: objectId! } : { kind: 'delete', className: className!, objectId: objectId! };
}

export interface BatchDeps {
  /** The records service; each item runs on `writesOn(storage)` (the transaction's adapter in transaction mode). */
  readonly records: { writesOn(storage: StorageAdapter): RecordWrites };
  readonly storage: StorageAdapter;
  /** Resolves an item's own `token`. */
  readonly sessions: () => SessionResolver | undefined;
}

type Outcome = { success: Json } | { error: { code: number; error: string } };

/**
 * Runs batch items in order, each as a call of the records service with the caller's credentials
 * (an item's `token` replaces the session token: the item gets its own Caller). Returns one outcome
 * per item: `{success}` (`{createdAt, objectId}`, `{updatedAt}`, `{msg: "ok"}`) or `{error: {code,
 * error}}`; a malformed item (113) answers in its slot and the others still run. With
 * `transaction`, all items run in one storage transaction and the first failure, a malformed item
 * included, rolls every item back and fails the request (11070).
 */
export async function runBatch(deps: BatchDeps, caller: Caller, batch: BatchRequest): Promise<Outcome[]> {
  const callers = new Map<string | null, Caller>([[caller.sessionToken, caller]]);
  const callerOf = (item: BatchItem): Caller => {
    const token = item.token ?? caller.sessionToken;
    let found = callers.get(token);
    if (!found) {
      found = sessionCaller(caller.app, { credential: caller.credential, isMaster: caller.isMaster, sessionToken: token, address: caller.address }, deps.sessions);
      callers.set(token, found);
    }
    return found;
  };
  if (!batch.transaction) {
    const writes = deps.records.writesOn(deps.storage);
    const outcomes: Outcome[] = [];
    for (const item of batch.items) {
      outcomes.push(isSvcError(item) ? { error: item.toJSON() } : await settle(() => runItem(writes, callerOf(item), item)));
    }
    return outcomes;
  }
  const refused = batch.items.findIndex(isSvcError);
  if (refused >= 0) throw transactionFailed(refused, batch.items[refused] as SvcError);
  if (!deps.storage.capabilities.transactions) {
    throw svcError('invalidParameter', `the storage adapter '${deps.storage.name}' does not support transactions`);
  }
  // Sessions resolve before the transaction: the session store reads through the outer storage,
  // which waits for the transaction to end (SQLite, memory), so resolving inside it would deadlock.
  const itemCallers = (batch.items as readonly BatchItem[]).map(callerOf);
  for (const itemCaller of new Set(itemCallers)) await itemCaller.user();
  return deps.storage.transaction(async (tx) => {
    const writes = deps.records.writesOn(tx);
    const outcomes: Outcome[] = [];
    for (const [index, item] of (batch.items as readonly BatchItem[]).entries()) {
      try {
        outcomes.push({ success: await runItem(writes, itemCallers[index]!, item) });
      } catch (error) {
        if (!isSvcError(error)) throw error;
        throw transactionFailed(index, error);
      }
    }
    return outcomes;
  });
}

/** Dispatches one item to the records service; its result becomes `success`. */
async function runItem(writes: RecordWrites, caller: Caller, item: BatchItem): Promise<Json> {
  const { op } = item;
  switch (op.kind) {
    case 'create': {
      const created = await writes.create(caller, op.className, item.body);
      return { createdAt: created.createdAt, objectId: created.objectId };
    }
    case 'update':
      return copyOf(await writes.update(caller, op.className, op.objectId, item.body));
    case 'delete':
      await writes.delete(caller, op.className, op.objectId);
      return { msg: 'ok' };
  }
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
