import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { isSvcError } from '../core/errors.js';
import { type Random, randomHex } from '../core/random.js';
import { type StoredRecord, dateValue } from '../core/values.js';
import type { JsonObject } from '../core/wire-values.js';
import type { StorageAdapter } from '../storage/port.js';
import { authLinkRef } from './user-table.js';
import { findPlan, whereEquals } from '../query/plan-builders.js';

/** One user's link to one platform identity. */
export interface AuthLink {
  readonly objectId: string;
  readonly platform: string;
  readonly userId: string;
  readonly data: JsonObject;
}

/**
 * The `_AuthLink` table: `linkKey` = `<platform>:<id>` carries a unique index, so two racing first
 * logins of one identity end with exactly one link (and the loser logs in as the winner's user).
 */
export interface AuthLinkStore {
  find(app: Application, platform: string, id: string): Promise<AuthLink | null>;
  ofUser(app: Application, userId: string): Promise<AuthLink[]>;
  /** Inserts a link; false when the identity is already linked (the unique index refused it). */
  insert(app: Application, platform: string, id: string, userId: string, data: JsonObject): Promise<boolean>;
  updateData(app: Application, link: AuthLink, data: JsonObject): Promise<void>;
  delete(app: Application, link: AuthLink): Promise<void>;
}

const linkKey = (platform: string, id: string) => `${platform}:${id}`;

function toLink(record: StoredRecord): AuthLink {
  return { objectId: record.objectId, platform: String(record.platform), userId: String(record.userId), data: (record.data ?? {}) as JsonObject };
}

export function createAuthLinkStore(deps: { readonly storage: StorageAdapter; readonly clock: Clock; readonly random: Random }): AuthLinkStore {
  const { storage } = deps;
  return {
    async find(app, platform, id) {
      const found = await storage.find(authLinkRef(app), findPlan(whereEquals('linkKey', linkKey(platform, id)), 1));
      return found[0] ? toLink(found[0]) : null;
    },
    async ofUser(app, userId) {
      return (await storage.find(authLinkRef(app), findPlan(whereEquals('userId', userId), 100))).map(toLink);
    },
    async insert(app, platform, id, userId, data) {
      const now = dateValue(deps.clock.now());
      const record = { objectId: randomHex(deps.random, 8), createdAt: now, updatedAt: now, linkKey: linkKey(platform, id), platform, userId, data } as StoredRecord;
      try {
        await storage.insert(authLinkRef(app), record);
        return true;
      } catch (error) {
        if (isSvcError(error) && error.errorName === 'uniqueViolation') return false;
        throw error;
      }
    },
    async updateData(app, link, data) {
      await storage.update(authLinkRef(app), link.objectId, [{ kind: 'set', column: 'data', path: [], value: data }], dateValue(deps.clock.now()));
    },
    async delete(app, link) {
      await storage.delete(authLinkRef(app), link.objectId);
    },
  };
}
