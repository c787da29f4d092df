import type { Application } from '../app/application.js';
import { isSvcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { ColumnSchema } from '../query/plan.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';

/** The user table. */
export const USER_CLASS = '_User';
/** The session table (token hashes, never tokens). */
export const SESSION_CLASS = '_Session';
/** Users' links to platform identities (`authData`): master key only, never shown to other users. */
export const AUTH_LINK_CLASS = '_AuthLink';

/** Columns with a unique index, in the order their conflicts are reported. */
export const UNIQUE_USER_FIELDS = ['username', 'email', 'mobilePhoneNumber'] as const;
export type UniqueUserField = (typeof UNIQUE_USER_FIELDS)[number];

/** Columns the users feature manages; clients cannot write the verification flags themselves. */
export const USER_COLUMNS: Readonly<Record<string, ColumnSchema>> = Object.freeze({
  username: { type: 'String' },
  password: { type: 'String' },
  email: { type: 'String' },
  emailVerified: { type: 'Boolean' },
  mobilePhoneNumber: { type: 'String' },
  mobilePhoneVerified: { type: 'Boolean' },
  ACL: { type: 'Object' },
});

export function userRef(app: Application): TableRef {
  return { namespace: app.namespace, className: USER_CLASS };
}

export function sessionRef(app: Application): TableRef {
  return { namespace: app.namespace, className: SESSION_CLASS };
}

export function authLinkRef(app: Application): TableRef {
  return { namespace: app.namespace, className: AUTH_LINK_CLASS };
}

/** `column == value`. */
/**
 * Creates the user and session tables with their columns and indexes on first use, once per
 * application namespace and storage. Unique indexes on username, email and mobilePhoneNumber are
 * what makes two racing sign-ups with one name end with exactly one user. An index that cannot be
 * built over existing duplicates is logged and skipped (the checks before each write still apply).
 */
export function createTableSetup(storage: StorageAdapter, logger: Logger): (app: Application) => Promise<void> {
  const ready = new Map<string, Promise<void>>();
  const setup = async (app: Application) => {
    const users = userRef(app);
    await storage.ensureColumns(users, USER_COLUMNS);
    for (const column of UNIQUE_USER_FIELDS) await createIndex(storage, users, `unique_${column}`, column, true, logger);
    const sessions = sessionRef(app);
    await storage.ensureColumns(sessions, { tokenHash: { type: 'String' }, userId: { type: 'String' }, expiresAt: { type: 'Date' } });
    await createIndex(storage, sessions, 'unique_tokenHash', 'tokenHash', true, logger);
    await createIndex(storage, sessions, 'by_userId', 'userId', false, logger);
    const links = authLinkRef(app);
    await storage.ensureColumns(links, { linkKey: { type: 'String' }, platform: { type: 'String' }, userId: { type: 'String' }, data: { type: 'Object' } });
    await createIndex(storage, links, 'unique_linkKey', 'linkKey', true, logger);
    await createIndex(storage, links, 'by_userId', 'userId', false, logger);
  };
  return (app) => {
    let pending = ready.get(app.namespace);
    if (!pending) {
      pending = setup(app);
      ready.set(app.namespace, pending);
      pending.catch(() => ready.delete(app.namespace));
    }
    return pending;
  };
}

async function createIndex(storage: StorageAdapter, ref: TableRef, name: string, column: string, unique: boolean, logger: Logger) {
  try {
    await storage.createIndex(ref, { name, columns: [column], unique });
  } catch (error) {
    if (!isSvcError(error)) throw error;
    logger.warn('users: could not create an index (duplicate values in existing data?)', { table: ref.className, column, code: error.code });
  }
}
