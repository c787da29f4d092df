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
import { parseWrite } from '../operators/parse-write.js';
import type { Projection } from '../query/plan.js';
import type { Awaitable, FieldOp, SchemaLimits, StorageAdapter, TableRef } from '../storage/port.js';
import type { ClassPolicy, ClassPolicyRegistry, ClassWriteContext } from './class-policy.js';
import { isPlausibleObjectId, newObjectId } from './object-id.js';

/** What the record operations need; `storage` is a transaction's adapter inside a transactional batch. */
export interface RecordDeps {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
  readonly policies: ClassPolicyRegistry;
  readonly inBatch: boolean;
}

interface Target {
  readonly ref: TableRef;
  readonly policy: ClassPolicy;
  readonly policyContext: ClassWriteContext;
  readonly timeZone: string;
  /** The application's table and column limits, passed to every `ensureColumns`. */
  readonly limits: SchemaLimits;
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
  const body = (await t.policy.beforeCreate?.(t.policyContext, input)) ?? input;
  const schema = await deps.storage.getSchema(t.ref);
  const plan = parseWrite(body, { schema, timeZone: t.timeZone });
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
  await t.policy.beforeRead?.(t.policyContext, objectId);
  const record = await deps.storage.get(t.ref, objectId, projection);
  if (!record) throw svcError('objectNotFound', objectId);
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
  const body = (await t.policy.beforeUpdate?.(t.policyContext, objectId, input)) ?? input;
  const schema = await deps.storage.getSchema(t.ref);
  if (!schema) throw svcError('objectNotFound', objectId);
  const plan = parseWrite(body, { schema, timeZone: t.timeZone });
  const nowMs = deps.clock.now();
  if (Object.keys(plan.columns).length > 0) await deps.storage.ensureColumns(t.ref, plan.columns, t.limits);
  await t.commit(async () => {
    const updated = await deps.storage.update(t.ref, objectId, plan.ops, dateValue(nowMs));
    if (!updated) throw svcError('objectNotFound', objectId);
  });
  return { updatedAt: formatDateTime(nowMs, t.timeZone) };
}

/** Deletes one record, or 101 when it is missing. */
export async function deleteRecord(deps: RecordDeps, caller: Caller, className: string, objectId: string): Promise<void> {
  const t = target(deps, caller, className);
  assertObjectId(objectId);
  await t.policy.beforeDelete?.(t.policyContext, objectId);
  await t.commit(async () => {
    if (!(await deps.storage.delete(t.ref, objectId))) throw svcError('objectNotFound', objectId);
  });
}
