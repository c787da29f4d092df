import type { CaptchaApi } from '../captcha/index.js';
import type { SessionResolver } from '../http/types.js';
import type { RecordsFeature } from '../records/index.js';
import type { SmsApi } from '../sms/sms-api.js';
import type { UsersFeature } from '../users/index.js';
import { featureKey } from './contract.js';

/** Keys of the built-in features' APIs: `ctx.use(RECORDS)`, `ctx.find(SMS)`. */
export const CAPTCHA = featureKey<CaptchaApi>('captcha');
export const SMS = featureKey<SmsApi>('sms');
export const RECORDS = featureKey<RecordsFeature>('records');
export const USERS = featureKey<UsersFeature>('users');
/** Published by the users feature: session tokens → users. */
export const SESSIONS = featureKey<SessionResolver>('sessions');

/**
 * What the built-in features publish, as one typed object (`service.registry`): a view over the
 * published APIs, kept for hosts and feature factories written before feature keys. New code uses
 * `ctx.use(KEY)` / `ctx.find(KEY)`.
 */
export interface ServiceRegistry {
  /** Session tokens → users (the users feature). */
  sessions?: SessionResolver;
  /** validate_token checks (the captcha feature). */
  captcha?: CaptchaApi;
  /** Codes, notifications, status, quota (the SMS feature, when a transport is configured). */
  sms?: SmsApi;
  /** Class policies of data tables (the records feature). */
  records?: RecordsFeature;
  users?: UsersFeature;
}

/** The published APIs of one service, by feature id. */
export type PublishedApis = Map<string, unknown>;

/** The registry view over `apis`: reading a field looks its key up; assigning one publishes it. */
export function registryView(apis: PublishedApis): ServiceRegistry {
  const view = {} as ServiceRegistry;
  const fields: ReadonlyArray<[keyof ServiceRegistry, string]> = [
    ['sessions', SESSIONS.id],
    ['captcha', CAPTCHA.id],
    ['sms', SMS.id],
    ['records', RECORDS.id],
    ['users', USERS.id],
  ];
  for (const [field, id] of fields) {
    Object.defineProperty(view, field, {
      enumerable: true,
      get: () => apis.get(id),
      set: (value: unknown) => {
        if (value === undefined) apis.delete(id);
        else apis.set(id, value);
      },
    });
  }
  return view;
}
