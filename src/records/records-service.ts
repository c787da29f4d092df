import type { Caller } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import { assertTableName } from '../core/names.js';
import type { Random } from '../core/random.js';
import { encodeRecord, type Json, type JsonObject } from '../core/wire-values.js';
import { type ImportOutcome, importRecords } from './record-import.js';
import { parseKeys } from '../query/parse/options.js';
import { parseInclude } from '../query/parse/include.js';
import type { StorageAdapter } from '../storage/port.js';
import type { ClassPolicyRegistry, OwnCreateResult } from './class-policy.js';
import { isPlausibleObjectId } from '../core/object-id.js';
import { type ListDeps, expandRecordIncludes, handleList } from './list-service.js';
import { ListPlanCache } from './list-plan-cache.js';
import { type CreatedRecord, type RecordDeps, createRecord, deleteRecord, readRecord, updateRecord } from './record-ops.js';
import type { AccessControl } from '../access/access-control.js';
import type { TableRules } from '../access/table-rules.js';
import { audienceView } from '../access/audience-view.js';
import { listOperation, readViews } from './read-restriction.js';

/** Options of a single-record read: the wire `keys` (`a`, `-b`) and `include` paths (`post.author`). */
export interface RecordReadOptions {
  readonly keys?: readonly string[];
  readonly include?: readonly string[];
}

/** Options of a list beyond its wire parameters. */
export interface RecordListOptions {
  /**
   * The listed table's rows are an audience the service acts on for the caller (a client push's
   * installations), not rows shown to it: its where reaches every row (access/ `audienceView`), yet
   * may name only columns the caller sees, and reads any other table as the caller.
   */
  readonly audience?: boolean;
}

/** What a create answers: the new record's id and its reply fields (`createdAt`; a `_User` sign-up adds `sessionToken`). */
export type CreateResult = OwnCreateResult;

/** The record writes a batch item may run (on the batch's storage: a transaction's inside a transactional batch). */
export interface RecordWrites {
  /** Creates a record with the table's generic create (a policy's own handlers are not used; a table that refuses batches is refused, 11071). */
  create(caller: Caller, className: string, fields: JsonObject): Promise<CreatedRecord>;
  /** Applies write fields atomically; 101 when missing. */
  update(caller: Caller, className: string, objectId: string, fields: JsonObject): Promise<{ readonly updatedAt: string }>;
  /** Deletes one record; 101 when missing. */
  delete(caller: Caller, className: string, objectId: string): Promise<void>;
}

/**
 * The records service: every `/1/classes` operation as a caller plus typed input in, domain values or
 * a coded error (SvcError) out. Knows nothing of HTTP; `records-routes.ts` maps requests onto it.
 * The class policy of each table (`registerClassPolicy`) runs on every call.
 *
 * @example
 * const { objectId } = await records.create(internalCaller(app), 'Post', { title: 'hi' });
 * const post = await records.get(internalCaller(app), 'Post', objectId);
 */
export interface RecordsService {
  /** Creates a record (a table's policy may answer itself: `_User` creates are sign-ups). */
  create(caller: Caller, className: string, fields: JsonObject): Promise<CreateResult>;
  /** One record encoded for the wire (dates in the app's time zone), `include` expanded; 101 when missing. */
  get(caller: Caller, className: string, objectId: string, options?: RecordReadOptions): Promise<JsonObject>;
  update(caller: Caller, className: string, objectId: string, fields: JsonObject): Promise<{ readonly updatedAt: string }>;
  delete(caller: Caller, className: string, objectId: string): Promise<void>;
  /**
   * A list, count or statistics query over the wire query parameters (`where`, `order`, `limit`,
   * `skip`, `keys`, `include`, `count`, `groupby`, ...): `{results}` plus `count` when asked.
   */
  list(caller: Caller, className: string, query: URLSearchParams, options?: RecordListOptions): Promise<JsonObject>;
  /** The writes a batch item runs, on `storage` (a transaction's adapter in a transactional batch). */
  writesOn(storage: StorageAdapter): RecordWrites;
  /** Restores exported records with their own ids and times (master key only; see record-import.ts). */
  importRecords(caller: Caller, className: string, records: readonly Json[]): Promise<ImportOutcome>;
}

/** What the records service is built from. */
export interface RecordsServiceDeps {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
  readonly policies: ClassPolicyRegistry;
  /** ACLs, roles and class-level permissions (see src/access). */
  readonly access: AccessControl;
}

/** Builds the records service over the (observed) storage and the class policies. */
export function createRecordsService(deps: RecordsServiceDeps): RecordsService {
  const { policies } = deps;
  const resolve = policies.resolve.bind(policies);
  const { access } = deps;
  const opsOn = (storage: StorageAdapter, inBatch: boolean): RecordDeps => ({ storage, clock: deps.clock, random: deps.random, policies, inBatch, access });
  const direct = opsOn(deps.storage, false);
  const isSecretColumn = secretColumnOf(access.tables);
  const plans = new ListPlanCache();
  const viewsOf = async (caller: Caller) => readViews(deps.storage, access, await access.accessOf(caller), caller.app.namespace);
  return {
    async create(caller, className, fields) {
      assertTableName(className);
      const own = policies.resolve(className).create;
      if (own) return own(caller, fields);
      const created = await createRecord(direct, caller, className, fields);
      return { kind: 'created', objectId: created.objectId, reply: { createdAt: created.createdAt, objectId: created.objectId } };
    },
    async get(caller, className, objectId, options = {}) {
      assertTableName(className);
      if (!isPlausibleObjectId(objectId)) throw svcError('objectNotFound', objectId.slice(0, 64));
      const include = parseInclude(options.include && options.include.length > 0 ? options.include.join(',') : null);
      const projection = parseKeys(options.keys ?? [], include.map((path) => path[0]!.column));
      const record = await readRecord(direct, caller, className, objectId, projection);
      const body = encodeRecord(record, caller.app.settings.timeZone);
      if (include.length > 0) await expandRecordIncludes(caller.app, include, { storage: deps.storage, views: await viewsOf(caller) }, body);
      return body;
    },
    async update(caller, className, objectId, fields) {
      assertTableName(className);
      const own = policies.resolve(className).update;
      return own ? own(caller, objectId, fields) : updateRecord(direct, caller, className, objectId, fields);
    },
    async delete(caller, className, objectId) {
      assertTableName(className);
      const own = policies.resolve(className).delete;
      return own ? own(caller, objectId) : deleteRecord(direct, caller, className, objectId);
    },
    async list(caller, className, query, options = {}) {
      assertTableName(className);
      const level = await access.accessOf(caller);
      const views = readViews(deps.storage, access, level, caller.app.namespace);
      const top = options.audience ? await audienceView(access, level, { namespace: caller.app.namespace, className }) : undefined;
      const listDeps: ListDeps = { storage: deps.storage, className, views, operation: listOperation(query), isSecretColumn, plans, ...(top ? { top } : {}) };
      return (await handleList({ app: caller.app, query }, listDeps)).body;
    },
    importRecords: (caller, className, records) => importRecords(direct, caller, className, records),
    writesOn(storage) {
      const ops = opsOn(storage, true);
      // A table that refuses batches (e.g. `_User`, served by its policy's own handlers) is refused here too.
      const batchable = (className: string) => {
        assertTableName(className);
        if (!policies.resolve(className).allowBatch) throw svcError('batchTableRefused', className, '-');
      };
      return {
        create: async (caller, className, fields) => (batchable(className), createRecord(ops, caller, className, fields)),
        update: async (caller, className, objectId, fields) => (batchable(className), updateRecord(ops, caller, className, objectId, fields)),
        delete: async (caller, className, objectId) => (batchable(className), deleteRecord(ops, caller, className, objectId)),
      };
    },
  };
}

/** Whether a table's declared rule makes `column` secret: no query may name it, whoever asks (for `ParseContext.isSecretColumn`). */
export function secretColumnOf(tables: TableRules): (className: string, column: string) => boolean {
  return (className, column) => tables.ruleOf(className).secretColumns.has(column);
}
