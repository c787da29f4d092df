/** Push notifications: installations, `POST /1/push`, Web Push and FCM transports. */
export { PUSH, type PushOptions, type PushSettings, pushFeature } from './push-feature.js';
export type { PushService } from './push-service.js';
export type { PushOutcome, PushTarget, PushTransport, WebPushSubscription } from './push-transport.js';
export { DEFAULT_PUSH_SERVICE_HOSTS, type WebPushOptions, webPushTransport } from './web-push-transport.js';
export { type FcmOptions, type FcmServiceAccount, fcmTransport } from './fcm-transport.js';
