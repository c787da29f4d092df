import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json } from '../core/wire-values.js';
import type { RouteContext } from '../http/types.js';
import type { Awaitable, StorageAdapter } from '../storage/port.js';

export type JsonObject = { readonly [key: string]: Json };

/** What a policy hook sees of the request. */
export interface ClassPolicyContext {
  /** The request (its app, auth and `user()`); inside a batch, the item's own context. */
  readonly request: RouteContext;
  readonly className: string;
  /** The storage to use: inside a transactional batch, the transaction's adapter. */
  readonly storage: StorageAdapter;
  readonly inBatch: boolean;
}

/** What a write hook (create, update, delete) sees: the request plus deferred effects. */
export interface ClassWriteContext extends ClassPolicyContext {
  /** Runs `effect` once the write has succeeded (mails, session revocations), with the record's id. */
  afterWrite(effect: (objectId: string) => Awaitable<void>): void;
  /**
   * Lets the policy translate a failed write, e.g. a unique-index race (401) into 202/203/209:
   * `translate` throws the replacement, or returns to keep the original error.
   */
  onWriteError(translate: (error: unknown) => Awaitable<void>): void;
}

/**
 * Rules of one table for `/1/classes/:table` and batch items. A feature that owns a system table
 * (the users feature owns `_User`) registers one; hooks throw a SvcError to refuse.
 */
export interface ClassPolicy {
  /** Whether batch items may touch the table. `_User` is refused in batches whatever this says. */
  readonly allowBatch: boolean;
  /** Before a create; may return a replacement body (e.g. with a hashed password). */
  beforeCreate?(ctx: ClassWriteContext, body: JsonObject): Awaitable<JsonObject | void>;
  /** Before a read of one record. */
  beforeRead?(ctx: ClassPolicyContext, objectId: string): Awaitable<void>;
  /**
   * Before a list, count or statistics query of the table. When absent, `beforeRead` guards lists
   * too (called with an empty objectId), so a policy that guards reads never leaks through a list.
   */
  beforeList?(ctx: ClassPolicyContext): Awaitable<void>;
  /** Before an update; may return a replacement body. */
  beforeUpdate?(ctx: ClassWriteContext, objectId: string, body: JsonObject): Awaitable<JsonObject | void>;
  /** Before a delete. */
  beforeDelete?(ctx: ClassWriteContext, objectId: string): Awaitable<void>;
  /** Shapes a record on its way out (drop secret columns): single reads, lists and `include`d objects. */
  filterOutput?(ctx: ClassPolicyContext, record: StoredRecord): StoredRecord;
}

/** Ordinary tables: no hooks, batchable. */
export const OPEN_POLICY: ClassPolicy = Object.freeze({ allowBatch: true });

/**
 * System tables (`_Name`) without a registered policy: readable, writable only with the master key,
 * never in a batch.
 */
export const SYSTEM_POLICY: ClassPolicy = Object.freeze({
  allowBatch: false,
  beforeCreate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeUpdate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeDelete: (ctx: ClassPolicyContext) => requireMaster(ctx),
});

function requireMaster(ctx: ClassPolicyContext): void {
  if (!ctx.request.auth.isMaster) throw svcError('masterKeyRequired');
}

/** The table the batch refuses whatever its policy says (the seed's rule). */
export const USER_TABLE = '_User';

/** Class policies by table name. */
export class ClassPolicyRegistry {
  private readonly policies = new Map<string, ClassPolicy>();

  /** Sets the policy of a table, replacing any earlier one. */
  register(className: string, policy: ClassPolicy): void {
    this.policies.set(className, policy);
  }

  /** The registered policy, else {@link SYSTEM_POLICY} for `_Name` tables and {@link OPEN_POLICY} otherwise. */
  resolve(className: string): ClassPolicy {
    return this.policies.get(className) ?? (className.startsWith('_') ? SYSTEM_POLICY : OPEN_POLICY);
  }
}
