import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { Caller } from '../app/caller.js';
import { secretColumnError } from '../query/parse/context.js';
import { ANY_TABLE, type QueryFootprint } from '../query/parse/footprint.js';
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

/** What a list hook sees: the call plus the columns the parsed query names on this table. */
export interface ClassListContext extends ClassPolicyContext {
  /**
   * Columns the query names on this table anywhere in its plan (where at any depth, `$select` keys,
   * order, keys, groupby, aggregates, include), plus columns of `include` steps whose table is only
   * known at run time. Empty when the query names none.
   */
  readonly columns: ReadonlySet<string>;
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
   * Columns no list query may name anywhere in its plan, whoever asks (master key too): where keys
   * at any depth and through other tables' inner queries, `$select` keys, order, keys, groupby,
   * aggregates, include. Refused with 102 before storage is read. `_User` has `password`.
   */
  readonly secretColumns?: ReadonlySet<string>;
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
  /** Before a read of one record. */
  beforeRead?(ctx: ClassPolicyContext, objectId: string): Awaitable<void>;
  /**
   * Before a list, count or statistics query that touches the table: as the listed table, or through
   * an inner query of any other table's list. Runs on the parsed query, before storage is read. When
   * absent, `beforeRead` guards lists too (called with an empty objectId), so a policy that guards
   * reads never leaks through a list.
   */
  beforeList?(ctx: ClassListContext): Awaitable<void>;
  /** Before an update; may return a replacement body. */
  beforeUpdate?(ctx: ClassWriteContext, objectId: string, body: JsonObject): Awaitable<JsonObject | void>;
  /** Before a delete. */
  beforeDelete?(ctx: ClassWriteContext, objectId: string): Awaitable<void>;
  /** Shapes a record on its way out (drop secret columns): single reads, lists and `include`d objects. */
  filterOutput?(ctx: ClassPolicyContext, record: StoredRecord): StoredRecord;
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
  if (!ctx.caller.isMaster) throw svcError('masterKeyRequired');
}

/** Tables only the master key reads or writes, never in a batch (`_ClassPermissions`). */
export const MASTER_ONLY_POLICY: ClassPolicy = Object.freeze({
  allowBatch: false,
  beforeCreate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeRead: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeList: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeUpdate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeDelete: (ctx: ClassPolicyContext) => requireMaster(ctx),
});

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

/**
 * Runs the list guard of every table a parsed query touches (see `listQueryFootprint`): the listed
 * table and every inner query's table, however many and however deep. A secret column named
 * anywhere is refused (102) first.
 */
export async function guardListFootprint(
  resolve: (className: string) => ClassPolicy,
  base: Omit<ClassPolicyContext, 'className'>,
  footprint: QueryFootprint,
): Promise<void> {
  const anyTable = footprint.get(ANY_TABLE) ?? new Set<string>();
  for (const [className, named] of footprint) {
    if (className === ANY_TABLE) continue;
    const policy = resolve(className);
    const columns = anyTable.size === 0 ? named : new Set([...named, ...anyTable]);
    for (const column of columns) if (policy.secretColumns?.has(column)) throw secretColumnError(column);
    if (policy.beforeList) await policy.beforeList({ ...base, className, columns });
    else await policy.beforeRead?.({ ...base, className }, '');
  }
}

/** Whether a registry's policy of `className` declares `column` secret (for `ParseContext.isSecretColumn`). */
export function secretColumnOf(resolve: (className: string) => ClassPolicy): (className: string, column: string) => boolean {
  return (className, column) => resolve(className).secretColumns?.has(column) === true;
}
