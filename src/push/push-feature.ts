import { type FeatureDefinition, featureKey } from '../features/contract.js';
import { MASTER_ONLY_TABLE } from '../access/table-rules.js';
import type { RecordsFeature } from '../records/index.js';
import { tableRoutes } from '../records/index.js';
import { type FcmOptions, fcmTransport } from './fcm-transport.js';
import { INSTALLATION_CLASS, INSTALLATION_TABLE_RULE, PUSH_STATUS_CLASS, installationPolicy } from './installation-policy.js';
import { type PushService, createPushService } from './push-service.js';
import type { PushTransport } from './push-transport.js';
import { type WebPushOptions, webPushTransport } from './web-push-transport.js';

/** `createService({ push })`: the transports of push notifications. */
export interface PushOptions {
  /** Web Push with VAPID keys (needs the optional peer web-push), or a transport of your own. */
  readonly webPush?: WebPushOptions | PushTransport;
  /** Firebase Cloud Messaging HTTP v1 with a service account, or a transport of your own. */
  readonly fcm?: FcmOptions | PushTransport;
  /** Deliveries in flight at once per push (default 16). */
  readonly concurrency?: number;
}

/** One application's push settings (`featureSettings.push`). */
export interface PushSettings {
  /** Whether REST-key callers (not only the master key) may send pushes (default false). */
  readonly clientPush: boolean;
}

export const PUSH = featureKey<PushService>('push');
const RECORDS = featureKey<RecordsFeature>('records');

const isTransport = (value: object): value is PushTransport => typeof (value as Partial<PushTransport>).send === 'function';

/**
 * Push notifications: `/1/installations` (the records routes over `_Installation`), `POST /1/push`
 * (`{data, where?, channels?}`: 200 `{result: true, pushStatusId}`), and `_PushStatus` records
 * readable with the master key. docs/push.md.
 */
export function pushFeature(options: PushOptions = {}): FeatureDefinition<PushService, PushSettings> {
  return {
    id: PUSH.id,
    requires: [RECORDS.id],
    settings: {
      defaults: { clientPush: false },
      resolve(given, defaults) {
        if (given === undefined) return defaults;
        if (typeof given !== 'object' || given === null || Object.keys(given).some((k) => k !== 'clientPush')) throw new Error('expected { clientPush?: boolean }');
        const clientPush = (given as { clientPush?: unknown }).clientPush ?? defaults.clientPush;
        if (typeof clientPush !== 'boolean') throw new Error('clientPush is a boolean');
        return { clientPush };
      },
    },
    init(ctx) {
      const records = ctx.use(RECORDS);
      records.registerClassPolicy(INSTALLATION_CLASS, installationPolicy());
      records.declareTable(INSTALLATION_CLASS, INSTALLATION_TABLE_RULE);
      records.declareTable(PUSH_STATUS_CLASS, MASTER_ONLY_TABLE);
      const web = options.webPush ? (isTransport(options.webPush) ? options.webPush : webPushTransport(options.webPush)) : undefined;
      const fcm = options.fcm ? (isTransport(options.fcm) ? options.fcm : fcmTransport({ clock: ctx.clock, ...options.fcm })) : undefined;
      const concurrency = options.concurrency ?? 16;
      if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new Error('[svcbase] [push] concurrency must be a positive integer');
      const push = createPushService({
        records: records.service,
        transports: { ...(web ? { web } : {}), ...(fcm ? { fcm } : {}) },
        logger: ctx.logger,
        concurrency,
        clientPush: (caller) => ctx.settings(caller.app).clientPush,
      });
      return {
        api: push,
        routes: [
          ...tableRoutes(records.service, '/1/installations', () => INSTALLATION_CLASS, () => '/1/installations'),
          {
            method: 'POST',
            path: '/1/push',
            auth: 'app',
            body: 'json',
            handler: async (rc) => {
              const { pushStatusId } = await push.send(rc.caller, rc.body ?? {});
              return { body: { result: true, pushStatusId } };
            },
          },
        ],
        close: () => push.idle(),
      };
    },
  };
}
