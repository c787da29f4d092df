import { svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { Caller } from '../app/caller.js';
import type { Awaitable, StorageAdapter } from '../storage/port.js';

export type { JsonObject };

/** What a policy hook sees of the call. */
export interface ClassPolicyContext {
  /** Who asks (its app, master flag, session token and `user()`); inside a batch, the item's own caller. */
  readonly caller: Caller;
  readonly className: string;
  /** The storage to use: inside a transactional batch, the transaction's adapter. */
  readonly storage: StorageAdapter;
  readonly inBatch: boolean;
}

/**
 * What a write hook (create, update, delete) sees: the call plus the write's error translation.
 * Effects after a write belong to the service that owns the write (a policy's own `create`,
 * `update`, `delete`) or to the write pipeline's observers, not to a hook.
 */
export interface ClassWriteContext extends ClassPolicyContext {
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
  /**
   * Serves a create itself instead of the generic create (outside batches): the users feature
   * answers a `_User` create as a sign-up, session token included.
   */
  create?(caller: Caller, fields: JsonObject): Promise<OwnCreateResult>;
  /**
   * Serves an update itself instead of the generic one (outside batches): the users feature answers
   * a `_User` update as `PUT /1/users/:objectId` (password rules, session revocation, verification
   * mail). Answers the new `updatedAt` (wire format).
   */
  update?(caller: Caller, objectId: string, fields: JsonObject): Promise<{ readonly updatedAt: string }>;
  /** Serves a delete itself instead of the generic one (outside batches): `_User` revokes the user's sessions. */
  delete?(caller: Caller, objectId: string): Promise<void>;
  /** Before a create; may return a replacement body (e.g. with a hashed password). */
  beforeCreate?(ctx: ClassWriteContext, body: JsonObject): Awaitable<JsonObject | void>;
  /** Before an update; may return a replacement body. */
  beforeUpdate?(ctx: ClassWriteContext, objectId: string, body: JsonObject): Awaitable<JsonObject | void>;
  /** Before a delete. */
  beforeDelete?(ctx: ClassWriteContext, objectId: string): Awaitable<void>;
}

/**
 * What a policy's own create answers: a new record (`created`, its reply fields: at least objectId and
 * createdAt, a sign-up adds sessionToken), or an existing one logged in instead (`existing`, a phone
 * sign-up whose number is taken: the user as it is).
 */
export type OwnCreateResult =
  | { readonly kind: 'created'; readonly objectId: string; readonly reply: JsonObject }
  | { readonly kind: 'loggedIn'; readonly reply: JsonObject };

/** Ordinary tables: no hooks, batchable. */
export const OPEN_POLICY: ClassPolicy = Object.freeze({ allowBatch: true });

/**
 * System tables (`_Name`) without a registered policy: never in a batch. Who may read or write them
 * is access/'s decision (`TableRules`: master key only unless the owning feature declared otherwise).
 */
export const SYSTEM_POLICY: ClassPolicy = Object.freeze({ allowBatch: false });

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
