import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { type StoredRecord, dateValue } from '../core/values.js';
import type { JsonObject } from '../core/wire-values.js';
import type { Random } from '../core/random.js';
import { randomHex } from '../core/random.js';
import { findPlan, whereEquals } from '../query/plan-builders.js';
import type { StorageAdapter } from '../storage/port.js';
import { tableSetup } from './table-setup.js';

/** Async media checks and their verdicts; master key only. */
export const MEDIA_CHECK_CLASS = '_MediaCheck';

/**
 * The `_MediaCheck` table: one row per `asyncCheckWechatMedia` (`traceId`, `mediaUrl`, `status`
 * pending → done), the verdict stored once when the platform's callback arrives.
 */
export interface MediaCheckStore {
  started(app: Application, traceId: string, input: JsonObject): Promise<void>;
  /** Stores the verdict; false when the trace is unknown or already has one (a repeated callback). */
  finished(app: Application, traceId: string, verdict: JsonObject): Promise<boolean>;
}

export function createMediaCheckStore(deps: { readonly storage: StorageAdapter; readonly clock: Clock; readonly random: Random }): MediaCheckStore {
  const setup = tableSetup(deps.storage, MEDIA_CHECK_CLASS, {
    traceId: { type: 'String' },
    mediaUrl: { type: 'String' },
    mediaType: { type: 'Number' },
    openid: { type: 'String' },
    status: { type: 'String' },
    verdict: { type: 'Object' },
  }, 'traceId');
  return {
    async started(app, traceId, input) {
      const ref = await setup(app);
      const now = dateValue(deps.clock.now());
      const record = {
        objectId: randomHex(deps.random, 8),
        createdAt: now,
        updatedAt: now,
        traceId,
        mediaUrl: String(input.media_url ?? ''),
        mediaType: typeof input.media_type === 'number' ? input.media_type : 0,
        openid: String(input.openid ?? ''),
        status: 'pending',
      } as StoredRecord;
      await deps.storage.insert(ref, record);
    },
    async finished(app, traceId, verdict) {
      const ref = await setup(app);
      const found = (await deps.storage.find(ref, findPlan(whereEquals('traceId', traceId), 1)))[0];
      if (!found || found.status !== 'pending') return false;
      const now = dateValue(deps.clock.now());
      await deps.storage.update(ref, found.objectId, [
        { kind: 'set', column: 'status', path: [], value: 'done' },
        { kind: 'set', column: 'verdict', path: [], value: verdict as StoredRecord[string] },
      ], now);
      return true;
    },
  };
}
