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
import { updateWithoutRecord } from '../storage/update-without-record.js';
import type { ClassPolicy, ClassPolicyRegistry, ClassWriteContext } from './class-policy.js';
import { isPlausibleObjectId, newObjectId } from './object-id.js';
import type { AccessControl } from '../access/access-control.js';
import { isRoleTable } from '../access/access-control.js';
import { ACL_COLUMN } from '../access/acl-filter.js';
import { assertWritable, parseWriteWithAcl, readableProjection, withoutUnrequestedAcl } from './record-access.js';

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
export async function createRecord(deps: RecordDeps, caller: Caller, className: string, input: JsonObject): Promise<CreatedRecord> {
  const t = target(deps, caller, className);
  const access = await deps.access.accessOf(caller, deps.storage);
  await deps.access.assertClassAllows(access, t.ref, 'create', deps.storage);
  const body = (await t.policy.beforeCreate?.(t.policyContext, input)) ?? input;
  const schema = await deps.storage.getSchema(t.ref);
  const plan = parseWriteWithAcl(body, schema, t.timeZone);
  await assertFieldsAllowed(deps, access, t, schema, plan.columns);
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


/**
 * Reads one record (101 when missing), shaped by the table's policy. `projection` is the parsed
 * `keys` option (see `parseKeys`; undefined: every column).
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
  const access = await deps.access.accessOf(caller, deps.storage);
  await deps.access.assertClassAllows(access, t.ref, 'get', deps.storage);
  await t.policy.beforeRead?.(t.policyContext, objectId);
  const stored = await deps.storage.get(t.ref, objectId, access.master ? projection : readableProjection(projection));
  // An unreadable record answers exactly as a missing one: no existence oracle.
  if (!stored || !deps.access.allows(access, stored, 'read')) throw svcError('objectNotFound', objectId);
  const record = access.master ? stored : withoutUnrequestedAcl(stored, projection);
  return t.policy.filterOutput ? t.policy.filterOutput(t.policyContext, record) : record;
}

/** Applies write fields to one record atomically: its new `updatedAt` (wire format), or 101 when the record is missing. */
export async function updateRecord(
  deps: RecordDeps,
  caller: Caller,
  className: string,
  objectId: string,
  input: JsonObject,
): Promise<{ readonly updatedAt: string }> {
  const t = target(deps, caller, className);
  assertObjectId(objectId);
  const access = await deps.access.accessOf(caller, deps.storage);
  await deps.access.assertClassAllows(access, t.ref, 'update', deps.storage);
  const body = (await t.policy.beforeUpdate?.(t.policyContext, objectId, input)) ?? input;
  const schema = await deps.storage.getSchema(t.ref);
  if (!schema) throw svcError('objectNotFound', objectId);
  const plan = parseWriteWithAcl(body, schema, t.timeZone);
  await assertFieldsAllowed(deps, access, t, schema, plan.columns);
  const nowMs = deps.clock.now();
  if (Object.keys(plan.columns).length > 0) await deps.storage.ensureColumns(t.ref, plan.columns, t.limits);
  await t.commit(() =>
    guardedWrite(deps, access, t, schema, objectId, async (storage) => {
      if (!(await updateWithoutRecord(storage, t.ref, objectId, plan.ops, dateValue(nowMs)))) throw svcError('objectNotFound', objectId);
    }),
  );
  if (isRoleTable(className)) deps.access.rolesChanged(t.ref.namespace);
  return { updatedAt: formatDateTime(nowMs, t.timeZone) };
}

/** Deletes one record, or 101 when it is missing. */
export async function deleteRecord(deps: RecordDeps, caller: Caller, className: string, objectId: string): Promise<void> {
  const t = target(deps, caller, className);
  assertObjectId(objectId);
  const access = await deps.access.accessOf(caller, deps.storage);
  await deps.access.assertClassAllows(access, t.ref, 'delete', deps.storage);
  await t.policy.beforeDelete?.(t.policyContext, objectId);
  const schema = access.master ? null : await deps.storage.getSchema(t.ref);
  await t.commit(() =>
    guardedWrite(deps, access, t, schema, objectId, async (storage) => {
      if (!(await storage.delete(t.ref, objectId))) throw svcError('objectNotFound', objectId);
    }),
  );
  if (isRoleTable(className)) deps.access.rolesChanged(t.ref.namespace);
}

/** A non-master write that adds columns needs the table's `addField` permission. */
async function assertFieldsAllowed(
  deps: RecordDeps,
  access: Awaited<ReturnType<AccessControl['accessOf']>>,
  t: Target,
  schema: { readonly columns: Readonly<Record<string, unknown>> } | null,
  columns: Readonly<Record<string, unknown>>,
): Promise<void> {
  if (access.master) return;
  const existing = schema?.columns ?? {};
  // The ACL column is built in: adding it is never a schema change the lock or addField governs.
  const added = Object.keys(columns).find((column) => column !== ACL_COLUMN && !Object.hasOwn(existing, column));
  if (added === undefined && schema) return;
  if (t.locked) throw svcError('schemaLocked', t.ref.className, added ?? '*');
  if (added !== undefined) await deps.access.assertClassAllows(access, t.ref, 'addField', deps.storage);
}

/**
 * Runs a write of one existing record after checking the caller may write it by its ACL (101 when not,
 * exactly as when the record is missing). The check and the write share one transaction when the
 * storage has them (outside a batch, whose own transaction already holds both), so an ACL changed in
 * between cannot let the write through. A table without an ACL column has no ACLs to check.
 */
async function guardedWrite(
  deps: RecordDeps,
  access: Awaited<ReturnType<AccessControl['accessOf']>>,
  t: Target,
  schema: { readonly columns: Readonly<Record<string, unknown>> } | null,
  objectId: string,
  write: (storage: StorageAdapter) => Promise<void>,
): Promise<void> {
  if (access.master || !schema || !Object.hasOwn(schema.columns, ACL_COLUMN)) return write(deps.storage);
  const checked = async (storage: StorageAdapter) => {
    await assertWritable(storage, t.ref, objectId, (record) => deps.access.allows(access, record, 'write'));
    await write(storage);
  };
  if (deps.inBatch || !deps.storage.capabilities.transactions) return checked(deps.storage);
  return deps.storage.transaction(checked);
}
