export type { ConsumeResult, CounterStore, RateWindow } from './port.js';
export { decideSlidingWindows, windowsHorizon, assertWindows } from './sliding-window.js';
export { memoryCounterStore } from './memory-counter-store.js';
export { sqliteCounterStore, type SqliteCounterOptions } from './sqlite-counter-store.js';
export { createRateLimiter, type RateLimiter, MINUTE_MS, HOUR_MS, DAY_MS } from './rate-limiter.js';
