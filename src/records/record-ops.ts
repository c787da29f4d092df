import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import { assertTableName } from '../core/names.js';
import type { Random } from '../core/random.js';
import { formatDateTime } from '../core/time.js';
import type { StoredRecord } from '../core/values.js';
import { dateValue } from '../core/values.js';
import type { Caller } from '../app/caller.js';
import type { JsonObject } from '../core/wire-values.js';
import { applyOps } from '../operators/apply.js';
import type { Projection } from '../query/plan.js';
import type { Awaitable, FieldOp, SchemaLimits, StorageAdapter, TableRef } from '../storage/port.js';
import { actingAs } from './pipeline/write-pipeline.js';
import { updateWithoutRecord } from '../storage/update-without-record.js';
import type { ClassPolicy, ClassPolicyRegistry, ClassWriteContext } from './class-policy.js';
import { isPlausibleObjectId, newObjectId } from '../core/object-id.js';
import type { AccessControl } from '../access/access-control.js';
import { isRoleTable } from '../access/access-control.js';
import { ACL_COLUMN } from '../access/acl-filter.js';
import type { TableAccess } from '../access/table-access.js';
import { assertNewColumnsAllowed } from '../access/new-columns.js';
import { assertWritable, parseWriteWithAcl, withColumns, withoutUnrequested } from './record-access.js';
import { merged } from '../core/copy.js';

/** What the record operations need; `storage` is a transaction's adapter inside a transactional batch. */
export interface RecordDeps {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
  readonly policies: ClassPolicyRegistry;
  readonly inBatch: boolean;
  /** ACLs, roles and class-level permissions: checked on every operation of a non-master caller. */
  readonly access: AccessControl;
}

interface Target {
  readonly ref: TableRef;
  readonly policy: ClassPolicy;
  readonly policyContext: ClassWriteContext;
  readonly timeZone: string;
  /** The application's table and column limits, passed to every `ensureColumns`. */
  readonly limits: SchemaLimits;
  /** The schema lock: only the master key creates tables or columns. */
  readonly locked: boolean;
  /** Runs the write; a failure first goes through the policy's translators. */
  commit<T>(write: () => Promise<T>): Promise<T>;
}

function target(deps: RecordDeps, caller: Caller, className: string): Target {
  assertTableName(className);
  const shadowed = deps.access.tables.caseVariantOf(className);
  if (shadowed !== undefined) throw svcError('classNameCollision', className, shadowed);
  const policy = deps.policies.resolve(className);
  const translators: Array<(error: unknown) => Awaitable<void>> = [];
  return {
    ref: { namespace: caller.app.namespace, className },
    policy,
    policyContext: {
      caller,
      className,
      storage: deps.storage,
      inBatch: deps.inBatch,
      onWriteError: (translate) => void translators.push(translate),
    },
    timeZone: caller.app.settings.timeZone,
    limits: caller.app.settings.schema,
    locked: caller.app.settings.schema.locked,
    async commit(write) {
      try {
        return await write();
      } catch (error) {
        for (const translate of translators) await translate(error);
        throw error;
      }
    },
  };
}

/** The deps with their storage acting for `caller`: write hooks and events name who wrote (see `actingAs`). */
function actingFor(deps: RecordDeps, caller: Caller): RecordDeps {
  const storage = actingAs(deps.storage, caller);
  return storage === deps.storage ? deps : merged(deps, { storage });
}

function assertObjectId(objectId: string): void {
  if (!isPlausibleObjectId(objectId)) throw svcError('objectNotFound', objectId.slice(0, 64));
}

const isRelationOp = (op: FieldOp) => op.kind === 'add_relation' || op.kind === 'remove_relation';

/** A created record: its id and creation time (wire format, the application's time zone). */
export interface CreatedRecord {
  readonly objectId: string;
  readonly createdAt: string;
}

/**
 * Creates a record from write fields (values and field operations). The table and its columns are
 * created on first write; relation members are added in the same transaction as the insert.
 */
export async function createRecord(given: RecordDeps, caller: Caller, className: string, input: JsonObject): Promise<CreatedRecord> {
  const deps = actingFor(given, caller);
  const t = target(deps, caller, className);
  const view = await viewOf(deps, caller, t.ref);
  view.assert('create');
  const body = (await t.policy.beforeCreate?.(t.policyContext, input)) ?? input;
  const schema = await deps.storage.getSchema(t.ref);
  const plan = parseWriteWithAcl(body, schema, t.timeZone);
  assertNewColumnsAllowed(view, schema, plan.columns, 'create', t.locked);
  const nowMs = deps.clock.now();
  const now = dateValue(nowMs);
  const objectId = newObjectId(deps.random);
  const record = applyOps({ objectId, createdAt: now, updatedAt: now } as StoredRecord, plan.ops.filter((op) => !isRelationOp(op)));
  const relationOps = plan.ops.filter(isRelationOp);
  const write = async (storage: StorageAdapter) => {
    await storage.ensureColumns(t.ref, plan.columns, t.limits);
    await storage.insert(t.ref, record);
    if (relationOps.length > 0) await storage.update(t.ref, objectId, relationOps, now);
  };
  await t.commit(async () => {
    if (relationOps.length > 0 && deps.storage.capabilities.transactions) await deps.storage.transaction(write);
    else await write(deps.storage);
  });
  if (isRoleTable(className)) deps.access.rolesChanged(t.ref.namespace);
  return { objectId, createdAt: formatDateTime(nowMs, t.timeZone) };
}


/** The caller's access view of a table, read through the deps' storage (a transaction's inside one). */
async function viewOf(deps: RecordDeps, caller: Caller, table: TableRef): Promise<TableAccess> {
  return deps.access.tableAccess(await deps.access.accessOf(caller, deps.storage), table, deps.storage);
}

/**
 * Reads one record (101 when missing or unreadable), as the caller's access view shows it (hidden
 * columns removed). `projection` is the parsed `keys` option (see `parseKeys`; undefined: every column).
 */
export async function readRecord(
  deps: RecordDeps,
  caller: Caller,
  className: string,
  objectId: string,
  projection?: Projection,
): Promise<StoredRecord> {
  const t = target(deps, caller, className);
  assertObjectId(objectId);
  const view = await viewOf(deps, caller, t.ref);
  view.assert('get');
  const checked = view.rowColumns('get');
  const stored = await deps.storage.get(t.ref, objectId, withColumns(projection, checked));
  // An unreadable record answers exactly as a missing one: no existence oracle.
  if (!stored || !view.mayRead(stored, 'get')) throw svcError('objectNotFound', objectId);
  return view.project(withoutUnrequested(stored, projection, checked));
}

/** Applies write fields to one record atomically: its new `updatedAt` (wire format), or 101 when the record is missing. */
export async function updateRecord(
  given: RecordDeps,
  caller: Caller,
  className: string,
  objectId: string,
  input: JsonObject,
): Promise<{ readonly updatedAt: string }> {
  const deps = actingFor(given, caller);
  const t = target(deps, caller, className);
  assertObjectId(objectId);
  const view = await viewOf(deps, caller, t.ref);
  view.assert('update');
  if (t.policy.beforeUpdate) await decideBeforeHook(deps, view, 'update', objectId);
  const body = (await t.policy.beforeUpdate?.(t.policyContext, objectId, input)) ?? input;
  const schema = await deps.storage.getSchema(t.ref);
  if (!schema) throw svcError('objectNotFound', objectId);
  const plan = parseWriteWithAcl(body, schema, t.timeZone);
  assertNewColumnsAllowed(view, schema, plan.columns, 'update', t.locked);
  const nowMs = deps.clock.now();
  if (Object.keys(plan.columns).length > 0) await deps.storage.ensureColumns(t.ref, plan.columns, t.limits);
  await t.commit(() =>
    guardedWrite(deps, view, 'update', schema, objectId, async (storage) => {
      if (!(await updateWithoutRecord(storage, t.ref, objectId, plan.ops, dateValue(nowMs)))) throw svcError('objectNotFound', objectId);
    }),
  );
  if (isRoleTable(className)) deps.access.rolesChanged(t.ref.namespace);
  return { updatedAt: formatDateTime(nowMs, t.timeZone) };
}

/** Deletes one record, or 101 when it is missing. */
export async function deleteRecord(given: RecordDeps, caller: Caller, className: string, objectId: string): Promise<void> {
  const deps = actingFor(given, caller);
  const t = target(deps, caller, className);
  assertObjectId(objectId);
  const view = await viewOf(deps, caller, t.ref);
  view.assert('delete');
  if (t.policy.beforeDelete) await decideBeforeHook(deps, view, 'delete', objectId);
  await t.policy.beforeDelete?.(t.policyContext, objectId);
  const schema = view.master ? null : await deps.storage.getSchema(t.ref);
  await t.commit(() =>
    guardedWrite(deps, view, 'delete', schema, objectId, async (storage) => {
      if (!(await storage.delete(t.ref, objectId))) throw svcError('objectNotFound', objectId);
    }),
  );
  if (isRoleTable(className)) deps.access.rolesChanged(t.ref.namespace);
}

/**
 * The caller's write decision on one existing record, taken before a policy hook that may read the
 * stored record (the `_Installation` checks merge it): 101 when the view does not admit the write,
 * exactly as when the record is missing, so no hook's answer tells a refused caller anything about
 * it. `guardedWrite` decides again with the write itself, atomically.
 */
async function decideBeforeHook(deps: RecordDeps, view: TableAccess, operation: 'update' | 'delete', objectId: string): Promise<void> {
  if (view.master) return;
  await assertWritable(deps.storage, view.table, objectId, view.rowColumns(operation), (record) => view.mayWrite(record, operation));
}

/**
 * Runs a write of one existing record after checking the caller's view admits it (ACL write,
 * pointer permissions; 101 when not, exactly as when the record is missing). The check and the
 * write share one transaction when the storage has them (outside a batch, whose own transaction
 * already holds both), so an ACL changed in between cannot let the write through.
 */
async function guardedWrite(
  deps: RecordDeps,
  view: TableAccess,
  operation: 'update' | 'delete',
  schema: { readonly columns: Readonly<Record<string, unknown>> } | null,
  objectId: string,
  write: (storage: StorageAdapter) => Promise<void>,
): Promise<void> {
  if (!view.writeNeedsRow(operation, schema !== null && Object.hasOwn(schema.columns, ACL_COLUMN))) return write(deps.storage);
  const checked = async (storage: StorageAdapter) => {
    await assertWritable(storage, view.table, objectId, view.rowColumns(operation), (record) => view.mayWrite(record, operation));
    await write(storage);
  };
  if (deps.inBatch || !deps.storage.capabilities.transactions) return checked(deps.storage);
  return deps.storage.transaction(checked);
}
