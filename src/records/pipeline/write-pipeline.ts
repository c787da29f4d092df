import type { Caller } from '../../app/caller.js';
import { svcError } from '../../core/errors.js';
import { type DateValue, type StoredRecord, type Value, valuesEqual } from '../../core/values.js';
import { impliedColumn } from '../../operators/column-types.js';
import type { ColumnSchema } from '../../query/plan.js';
import type { FieldOp, StorageAdapter, TableRef, UpdateImages } from '../../storage/port.js';
import { updateWithoutRecord } from '../../storage/update-without-record.js';
import type { WriteEvent, WriteObservers } from '../../events/write-event.js';
import { HeldEvents } from './held-events.js';
import type { WriteHooks } from './write-hooks.js';
import { merged } from '../../core/copy.js';

/** Maps a table namespace to the id of the application that owns it. */
export type NamespaceOwner = (namespace: string) => string;

/**
 * The one write choke point: wraps the service's storage adapter so every insert, update and delete,
 * whichever feature makes it (records, batch, users, sessions), emits one WriteEvent after it
 * committed. Inside `transaction(work)` events are held (one per record: see `mergeEvents`) and
 * delivered only once the outermost transaction committed; a rolled-back transaction (or nested
 * savepoint) drops its events. The host's write hooks run here too: beforeSave / beforeDelete inside
 * the write (in its transaction), afterSave / afterDelete as observers after commit. With no observer
 * and no hook for the table, writes pass straight through (no before-image read).
 */
export function writePipeline(inner: StorageAdapter, observers: WriteObservers, owner: NamespaceOwner, hooks?: WriteHooks): StorageAdapter {
  return observe(inner, { observers, owner, hooks, deliver: (event) => observers.emit(event), inTransaction: false, created: undefined, caller: undefined });
}

/** How an observed adapter makes its view acting for a caller (see `actingAs`). */
const ACTING = new WeakMap<StorageAdapter, (caller: Caller) => StorageAdapter>();

/**
 * The same observed storage, its writes made by `caller`: the write hooks (`ctx.caller`) and write
 * events (`event.caller`) of its writes, and of the transactions it opens, name that caller. The
 * caller travels explicitly from the service that writes (a batch item passes its own); nothing is
 * read from an ambient scope. Any other adapter is returned as it is; so is this one while no hook
 * is registered (observers other than hooks never read the caller).
 */
export function actingAs(storage: StorageAdapter, caller: Caller): StorageAdapter {
  const bind = ACTING.get(storage);
  return bind ? bind(caller) : storage;
}

interface Scope {
  readonly observers: WriteObservers;
  readonly owner: NamespaceOwner;
  /** Where this scope's events go: to the observers, or to the enclosing transaction's buffer. */
  readonly deliver: (event: WriteEvent) => void;
  readonly inTransaction: boolean;
  readonly hooks: WriteHooks | undefined;
  /** Records created in the open transaction: their follow-up updates (relation members) ran beforeSave already as the create. */
  readonly created: Set<string> | undefined;
  /** Who makes this scope's writes (`actingAs`), or undefined (start-up work, mailed links, internal bookkeeping). */
  readonly caller: Caller | undefined;
}

function observe(target: StorageAdapter, scope: Scope): StorageAdapter {
  /** beforeSave runs on an update unless the record was created in this same transaction (the create ran it). */
  const hookedUpdate = (table: TableRef, objectId: string): boolean =>
    scope.hooks?.has('beforeSave', table.className) === true && scope.created?.has(recordKey(table, objectId)) !== true;
  const event = (op: WriteEvent['op'], table: TableRef, objectId: string, images: { before?: StoredRecord; after?: StoredRecord }): void =>
    scope.deliver({ op, app: scope.owner(table.namespace), className: table.className, objectId, ...images, ...(scope.caller ? { caller: scope.caller } : {}) });

  const updateImages = async (table: TableRef, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Promise<UpdateImages | null> => {
    const images = hookedUpdate(table, objectId)
      ? await atomically(target, scope.inTransaction, async (tx) => {
          const before = await tx.get(table, objectId);
          if (before === null || !scope.hooks) return null;
          const hookedOps = await opsAfterBeforeSave(scope.hooks, scope.owner(table.namespace), tx, table, before, ops, scope.caller);
          const after = await tx.update(table, objectId, hookedOps, updatedAt);
          return after === null ? null : { before, after };
        })
      : await updateWithBefore(target, scope.inTransaction, table, objectId, ops, updatedAt);
    if (images !== null && scope.observers.active) event('update', table, objectId, images);
    return images;
  };

  const adapter: StorageAdapter = {
    name: target.name,
    capabilities: { ...target.capabilities, updateReturnsBefore: true },
    getSchema: (table) => target.getSchema(table),
    ensureColumns: (table, columns, limits) => target.ensureColumns(table, columns, limits),
    createIndex: (table, index) => target.createIndex(table, index),
    get: (table, objectId, projection) => target.get(table, objectId, projection),
    find: (table, plan, options) => target.find(table, plan, options),
    count: (table, where, options) => target.count(table, where, options),
    aggregate: (table, plan, options) => target.aggregate(table, plan, options),
    dropNamespace: (namespace) => target.dropNamespace(namespace),
    ...(target.listTables ? { listTables: (namespace: string) => target.listTables!(namespace) } : {}),
    ...(target.dropColumn ? { dropColumn: (table: TableRef, column: string) => target.dropColumn!(table, column) } : {}),
    ...(target.dropIndex ? { dropIndex: (table: TableRef, name: string) => target.dropIndex!(table, name) } : {}),
    ...(target.dropTable ? { dropTable: (table: TableRef) => target.dropTable!(table) } : {}),
    ...(target.forgetSchema ? { forgetSchema: (table: TableRef) => target.forgetSchema!(table) } : {}),
    close: () => target.close(),

    insert(table, record) {
      const hooked = scope.hooks?.has('beforeSave', table.className) === true;
      if (!scope.observers.active && !hooked) return target.insert(table, record);
      return (async () => {
        let written = record;
        if (hooked && scope.hooks) {
          written = await scope.hooks.runBeforeCreate(scope.owner(table.namespace), table.className, record, scope.caller);
          await ensureChangedColumns(target, table, record, written);
        }
        await target.insert(table, written);
        scope.created?.add(recordKey(table, record.objectId));
        if (scope.observers.active) event('create', table, record.objectId, { after: written });
      })();
    },

    update(table, objectId, ops, updatedAt) {
      if (!scope.observers.active && !hookedUpdate(table, objectId)) return target.update(table, objectId, ops, updatedAt);
      return (async () => {
        const images = await updateImages(table, objectId, ops, updatedAt);
        return images === null ? null : images.after;
      })();
    },

    updateWithoutReturning(table, objectId, ops, updatedAt) {
      if (!scope.observers.active && !hookedUpdate(table, objectId)) return updateWithoutRecord(target, table, objectId, ops, updatedAt);
      return (async () => (await updateImages(table, objectId, ops, updatedAt)) !== null)();
    },

    updateReturningBefore: (table, objectId, ops, updatedAt) => updateImages(table, objectId, ops, updatedAt),

    delete(table, objectId) {
      const hooked = scope.hooks?.has('beforeDelete', table.className) === true;
      if (!scope.observers.active && !hooked) return target.delete(table, objectId);
      return (async () => {
        const before = await atomically(target, scope.inTransaction, async (tx) => {
          const record = await tx.get(table, objectId);
          if (record === null) return null;
          if (hooked) await scope.hooks?.runBeforeDelete(scope.owner(table.namespace), table.className, record, scope.caller);
          return (await tx.delete(table, objectId)) ? record : null;
        });
        if (before === null) return false;
        if (scope.observers.active) event('delete', table, objectId, { before });
        return true;
      })();
    },

    async transaction(work) {
      const held = new HeldEvents();
      const created = scope.created ?? new Set<string>();
      const result = await target.transaction((tx) =>
        work(observe(tx, merged(scope, { deliver: (e: WriteEvent) => held.hold(e), inTransaction: true, created }))),
      );
      held.release(scope.deliver);
      return result;
    },
  };
  ACTING.set(adapter, (caller) => (caller === scope.caller || scope.hooks?.any !== true ? adapter : observe(target, merged(scope, { caller }))));
  return adapter;
}

/** The port's native before-image when the adapter has one; otherwise a `get` and the `update` in one transaction. */
function updateWithBefore(
  target: StorageAdapter,
  inTransaction: boolean,
  table: TableRef,
  objectId: string,
  ops: readonly FieldOp[],
  updatedAt: DateValue,
): Promise<UpdateImages | null> {
  if (target.capabilities.updateReturnsBefore === true && target.updateReturningBefore) {
    return Promise.resolve(target.updateReturningBefore(table, objectId, ops, updatedAt));
  }
  return atomically(target, inTransaction, async (tx) => {
    const before = await tx.get(table, objectId);
    if (before === null) return null;
    const after = await tx.update(table, objectId, ops, updatedAt);
    return after === null ? null : { before, after };
  });
}

/** Runs a read-then-write as one unit: in the open transaction, in a new one, or (no transactions) best effort. */
async function atomically<T>(target: StorageAdapter, inTransaction: boolean, work: (tx: StorageAdapter) => Promise<T>): Promise<T> {
  if (inTransaction || !target.capabilities.transactions) return work(target);
  return target.transaction(work);
}

function recordKey(table: TableRef, objectId: string): string {
  return `${table.namespace}\u0000${table.className}\u0000${objectId}`;
}

/**
 * Runs the beforeSave hooks of an update over its set values (plain `set` ops of whole columns) and
 * returns the ops to write: changed values replace theirs, deleted keys drop their op, new keys add a
 * `set` (a key another op already writes is refused with 11111). New columns are created.
 */
async function opsAfterBeforeSave(
  hooks: WriteHooks,
  app: string,
  tx: StorageAdapter,
  table: TableRef,
  original: StoredRecord,
  ops: readonly FieldOp[],
  caller: Caller | undefined,
): Promise<readonly FieldOp[]> {
  const changes: Record<string, Value> = {};
  for (const op of ops) if (op.kind === 'set' && op.path.length === 0) changes[op.column] = op.value;
  const hooked = await hooks.runBeforeUpdate(app, table.className, original, changes, caller);
  const out: FieldOp[] = [];
  for (const op of ops) {
    if (op.kind !== 'set' || op.path.length !== 0) out.push(op);
    else if (Object.hasOwn(hooked, op.column)) out.push(merged(op, { value: hooked[op.column] as Value }));
  }
  for (const [column, value] of Object.entries(hooked)) {
    if (Object.hasOwn(changes, column)) continue;
    if (ops.some((op) => op.column === column)) throw svcError('hookChangeInvalid', table.className, column);
    out.push({ kind: 'set', column, path: [], value });
  }
  await ensureChangedColumns(tx, table, changes, hooked);
  return out;
}

/** Creates (or type-checks, 111) the columns whose values a hook changed or added. */
async function ensureChangedColumns(
  target: StorageAdapter,
  table: TableRef,
  before: Readonly<Record<string, Value>>,
  after: Readonly<Record<string, Value>>,
): Promise<void> {
  const columns: Record<string, ColumnSchema> = {};
  for (const [key, value] of Object.entries(after)) {
    if (Object.hasOwn(before, key) && valuesEqual(before[key], value)) continue;
    const column = impliedColumn(value);
    if (column) columns[key] = column;
  }
  if (Object.keys(columns).length > 0) await target.ensureColumns(table, columns);
}
