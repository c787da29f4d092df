import { svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { tableRule } from '../access/table-rules.js';
import type { ClassPolicy } from '../records/index.js';
import type { PushTarget } from './push-transport.js';

export const INSTALLATION_CLASS = '_Installation';
export const PUSH_STATUS_CLASS = '_PushStatus';

const DEVICE_TYPES: ReadonlySet<string> = new Set(['web', 'android', 'ios']);
const CHANNEL = /^[A-Za-z0-9_-]{1,64}$/;
const KEY = /^[A-Za-z0-9_-]{8,200}={0,2}$/;

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ endpoint, keys: { p256dh, auth } }` with an http(s) endpoint, or 131. */
function checkSubscription(value: Json | undefined): void {
  if (!isObject(value)) throw svcError('pushInstallationInvalid', 'Invalid device token: a web installation needs subscription {endpoint, keys: {p256dh, auth}}');
  const endpoint = value['endpoint'];
  const keys = value['keys'];
  let url: URL | null = null;
  try {
    url = typeof endpoint === 'string' && endpoint.length <= 2048 ? new URL(endpoint) : null;
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) throw svcError('pushInstallationInvalid', 'Invalid device token: subscription.endpoint must be an http(s) URL');
  if (!isObject(keys) || typeof keys['p256dh'] !== 'string' || typeof keys['auth'] !== 'string' || !KEY.test(keys['p256dh']) || !KEY.test(keys['auth'])) {
    throw svcError('pushInstallationInvalid', 'Invalid device token: subscription.keys needs p256dh and auth (base64url)');
  }
}

/** Checks the push fields of an installation body as it will be after the write (`merged`). */
function checkInstallation(merged: JsonObject): void {
  const type = merged['deviceType'];
  if (typeof type !== 'string' || !DEVICE_TYPES.has(type)) throw svcError('pushInstallationInvalid', `Invalid device type:${String(type ?? '').slice(0, 32)}`);
  if (type === 'web') checkSubscription(merged['subscription']);
  else {
    const token = merged['deviceToken'];
    if (typeof token !== 'string' || token.length < 8 || token.length > 4096) throw svcError('pushInstallationInvalid', `Invalid device token:${String(token ?? '').slice(0, 32)}`);
  }
  const channels = merged['channels'];
  if (channels !== undefined && channels !== null && (!Array.isArray(channels) || channels.length > 100 || !channels.every((c) => typeof c === 'string' && CHANNEL.test(c)))) {
    throw svcError('pushInstallationInvalid', 'channels must be a list of at most 100 names of letters, digits, _ or -');
  }
}

/** The target of a stored installation, or null when it has none a transport can use. */
export function targetOf(installation: JsonObject): PushTarget | null {
  const type = installation['deviceType'];
  if (type === 'web') {
    const sub = installation['subscription'];
    if (!isObject(sub) || typeof sub['endpoint'] !== 'string' || !isObject(sub['keys'])) return null;
    const keys = sub['keys'];
    if (typeof keys['p256dh'] !== 'string' || typeof keys['auth'] !== 'string') return null;
    return { kind: 'web', subscription: { endpoint: sub['endpoint'], keys: { p256dh: keys['p256dh'], auth: keys['auth'] } } };
  }
  const token = installation['deviceToken'];
  return (type === 'android' || type === 'ios') && typeof token === 'string' ? { kind: 'fcm', token } : null;
}

/**
 * Who reaches `_Installation`: clients register their device and read, update or delete it by
 * objectId under its ACL; listing and counting installations need the master key (as Parse Server),
 * so nobody enumerates other users' devices.
 */
export const INSTALLATION_TABLE_RULE = tableRule({ masterOnly: ['find', 'count'] });

/**
 * `_Installation` (`/1/installations`): clients register their device (`deviceType` web, android or
 * ios; a Web Push `subscription` or an FCM `deviceToken`; `channels`), and read, update or delete it
 * by objectId under its ACL; listing installations needs the master key (as Parse Server), so
 * nobody enumerates other users' devices. Never in a batch.
 */
export function installationPolicy(): ClassPolicy {
  return {
    allowBatch: false,
    beforeCreate(_ctx, body) {
      checkInstallation(body);
    },
    async beforeUpdate(ctx, objectId, body) {
      // Runs once access/ admitted the caller's write of this row (record-ops `decideBeforeHook`).
      const stored = await ctx.storage.get({ namespace: ctx.caller.app.namespace, className: INSTALLATION_CLASS }, objectId);
      if (!stored) return;
      const merged: JsonObject = {};
      for (const key of ['deviceType', 'deviceToken', 'subscription', 'channels']) {
        const value = Object.hasOwn(body, key) ? body[key] : (stored[key] as Json | undefined);
        if (value !== undefined && !(isObject(value) && value['__op'] === 'Delete')) merged[key] = value;
      }
      // Field operations on channels (AddUnique, Remove) are checked by their values.
      const channels = merged['channels'];
      if (isObject(channels)) {
        const objects = channels['objects'];
        merged['channels'] = Array.isArray(objects) ? objects : [];
      }
      checkInstallation(merged);
    },
  };
}
