import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { type Random, randomHex } from '../core/random.js';
import { sha256Hex } from '../core/secrets.js';
import { type StoredRecord, dateMs, dateValue, isDate } from '../core/values.js';
import { newObjectId } from '../core/object-id.js';
import type { StorageAdapter } from '../storage/port.js';
import type { WriteEvent } from '../events/write-event.js';
import { SESSION_CLASS, sessionRef } from './user-table.js';
import { findPlan, whereEquals } from '../query/plan-builders.js';

/** Bytes of randomness in a session token (shown as 64 lowercase hex characters). */
export const SESSION_TOKEN_BYTES = 32;

/** A session as stored: the token itself is never kept, only its SHA-256. */
export interface SessionInfo {
  /** SHA-256 hex of the token: identifies the session (`SessionUser.sessionId`). */
  readonly sessionId: string;
  readonly userId: string;
  /** Epoch ms. */
  readonly expiresAt: number;
}

/** Sessions in the `_Session` table: created at login, resolved per request, revoked on demand. */
export interface SessionStore {
  /** Issues a token for `userId` valid for the application's `users.sessionTtlMs`. */
  create(app: Application, userId: string): Promise<{ token: string; session: SessionInfo }>;
  /** The live session of `token`, or null (unknown, revoked or expired; expired ones are deleted). */
  resolve(app: Application, token: string): Promise<SessionInfo | null>;
  /** Revokes one session; false when it did not exist. */
  revoke(app: Application, sessionId: string): Promise<boolean>;
  /** Revokes every session of a user except `keepSessionId`; returns how many were revoked. */
  revokeAll(app: Application, userId: string, keepSessionId?: string): Promise<number>;
  /** The live sessions of a user. */
  list(app: Application, userId: string): Promise<SessionInfo[]>;
}

const PAGE = 500;

/**
 * The session store over the storage port, so sessions survive restarts and are shared by every
 * instance on one database. No cache: a revoked session is refused by the very next request.
 *
 * @example const { token } = await sessions.create(app, user.objectId);
 */
export function createSessionStore(deps: { storage: StorageAdapter; clock: Clock; random: Random }): SessionStore {
  const { storage, clock, random } = deps;
  const byHash = async (app: Application, sessionId: string) =>
    (await storage.find(sessionRef(app), findPlan(whereEquals('tokenHash', sessionId), 1)))[0] ?? null;
  const ofUser = async (app: Application, userId: string) => storage.find(sessionRef(app), findPlan(whereEquals('userId', userId), PAGE));

  return {
    async create(app, userId) {
      const token = randomHex(random, SESSION_TOKEN_BYTES);
      const now = clock.now();
      const session: SessionInfo = { sessionId: sha256Hex(token), userId, expiresAt: now + app.settings.users.sessionTtlMs };
      // Sweep the user's expired sessions so the table does not grow without bound.
      for (const record of await ofUser(app, userId)) {
        if (expiryOf(record) <= now) await storage.delete(sessionRef(app), record.objectId);
      }
      const stamp = dateValue(now);
      await storage.insert(sessionRef(app), {
        objectId: newObjectId(random),
        createdAt: stamp,
        updatedAt: stamp,
        tokenHash: session.sessionId,
        userId,
        expiresAt: dateValue(session.expiresAt),
      });
      return { token, session };
    },
    async resolve(app, token) {
      const record = await byHash(app, sha256Hex(token));
      if (!record) return null;
      const info = toInfo(record);
      if (info.expiresAt > clock.now()) return info;
      await storage.delete(sessionRef(app), record.objectId);
      return null;
    },
    async revoke(app, sessionId) {
      const record = await byHash(app, sessionId);
      return record ? storage.delete(sessionRef(app), record.objectId) : false;
    },
    async revokeAll(app, userId, keepSessionId) {
      let revoked = 0;
      for (;;) {
        const page = (await ofUser(app, userId)).filter((r) => r.tokenHash !== keepSessionId);
        for (const record of page) if (await storage.delete(sessionRef(app), record.objectId)) revoked++;
        if (page.length === 0 || page.length < PAGE - 1) return revoked;
      }
    },
    async list(app, userId) {
      const now = clock.now();
      return (await ofUser(app, userId)).map(toInfo).filter((s) => s.expiresAt > now);
    },
  };
}

/**
 * The session a committed write ended: the id (`SessionInfo.sessionId`) of a `_Session` row deleted
 * (logout, a new password, a revoke, the user deleted, an expired session swept) or changed (only
 * the master key changes one; whatever changed, the token is checked again on its next use), else
 * null. Realtime closes the connections signed in with it (docs/realtime.md).
 *
 * @example service.onWrite((event) => { const ended = endedSessionId(event); if (ended) forget(ended); });
 */
export function endedSessionId(event: Pick<WriteEvent, 'op' | 'className' | 'before'>): string | null {
  if (event.className !== SESSION_CLASS || event.op === 'create') return null;
  const hash = event.before?.tokenHash;
  return typeof hash === 'string' ? hash : null;
}

function expiryOf(record: StoredRecord): number {
  const value = record.expiresAt;
  return isDate(value) ? dateMs(value) : 0;
}

function toInfo(record: StoredRecord): SessionInfo {
  return { sessionId: String(record.tokenHash), userId: String(record.userId), expiresAt: expiryOf(record) };
}
