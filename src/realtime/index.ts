/** Realtime table subscriptions (issue 18): see docs/realtime.md. */
export { createRealtimeFeature, realtimeFeature } from './realtime-feature.js';
export type { RealtimeOptions, RealtimeTicker } from './options.js';
export { type RealtimeCaller, assertMaySubscribe, realtimeCaller } from './realtime-caller.js';
export type { QueryEvent, TableAction } from './subscription.js';
