import type { Application } from '../app/application.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { DateValue, StoredRecord, Value } from '../core/values.js';
import type { FieldOp, StorageAdapter } from '../storage/port.js';
import { UNIQUE_USER_FIELDS, type UniqueUserField, userRef } from './user-table.js';
import { findPlan, whereEquals } from '../query/plan-builders.js';

const CONFLICT_ERROR = { username: 'usernameTaken', email: 'emailTaken', mobilePhoneNumber: 'phoneTaken' } as const;

/** Reads and writes of the `_User` table with the feature's uniqueness rules. */
export interface UserStore {
  get(app: Application, objectId: string): Promise<StoredRecord | null>;
  /** The user whose `field` equals `value` exactly, or null. */
  findBy(app: Application, field: UniqueUserField, value: string): Promise<StoredRecord | null>;
  /** Throws 202/203/209 when another user already holds one of the unique values. */
  assertAvailable(app: Application, values: Partial<Record<UniqueUserField, Value>>, selfId?: string): Promise<void>;
  /** Inserts; a unique-index race loser gets 202/203/209 instead of the storage's 401. */
  insert(app: Application, record: StoredRecord): Promise<void>;
  /** Applies ops atomically; null when the user does not exist. Unique races map as in `insert`. */
  update(app: Application, objectId: string, ops: readonly FieldOp[], updatedAt: DateValue): Promise<StoredRecord | null>;
  delete(app: Application, objectId: string): Promise<boolean>;
}

/** The user store over a storage adapter (tables must exist: see `createTableSetup`). */
export function createUserStore(storage: StorageAdapter): UserStore {
  const findBy = async (app: Application, field: UniqueUserField, value: string) => {
    const found = await storage.find(userRef(app), findPlan(whereEquals(field, value), 1));
    return found[0] ?? null;
  };
  const assertAvailable = async (app: Application, values: Partial<Record<UniqueUserField, Value>>, selfId?: string) => {
    for (const field of UNIQUE_USER_FIELDS) {
      const value = values[field];
      if (typeof value !== 'string') continue;
      const holder = await findBy(app, field, value);
      if (holder && holder.objectId !== selfId) throw svcError(CONFLICT_ERROR[field], value);
    }
  };
  /** Turns a storage 401 into the precise code by finding who holds the value now. */
  const mapConflict = async (error: unknown, app: Application, values: Partial<Record<UniqueUserField, Value>>, selfId: string): Promise<never> => {
    if (isSvcError(error) && error.errorName === 'uniqueViolation') await assertAvailable(app, values, selfId);
    throw error;
  };
  return {
    get: async (app, objectId) => storage.get(userRef(app), objectId),
    findBy,
    assertAvailable,
    async insert(app, record) {
      try {
        await storage.insert(userRef(app), record);
      } catch (error) {
        const { username, email, mobilePhoneNumber } = record;
        await mapConflict(error, app, { username, email, mobilePhoneNumber }, record.objectId);
      }
    },
    async update(app, objectId, ops, updatedAt) {
      try {
        return await storage.update(userRef(app), objectId, ops, updatedAt);
      } catch (error) {
        const values: Partial<Record<UniqueUserField, Value>> = {};
        for (const op of ops) {
          if (op.kind === 'set' && op.path.length === 0 && (UNIQUE_USER_FIELDS as readonly string[]).includes(op.column)) {
            values[op.column as UniqueUserField] = op.value;
          }
        }
        return mapConflict(error, app, values, objectId);
      }
    },
    delete: async (app, objectId) => storage.delete(userRef(app), objectId),
  };
}
