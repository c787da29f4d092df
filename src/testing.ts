/**
 * For tests and adapter authors: the storage, query, KvStore and CounterStore conformance kits (run
 * under vitest), a fake clock, seeded randomness, and in-memory transports that capture what the
 * service sends.
 * ES modules only (vitest loads only as one); `require('svcbase/testing')` throws an error that says so.
 *
 * @example
 * import { runStorageConformance } from 'svcbase/testing';
 * runStorageConformance({ name: 'my adapter', create: () => myAdapter() });
 */
export * from './storage/conformance/index.js';
export { FakeClock } from './core/clock.js';
export { seededRandom } from './core/random.js';
export { memorySmsTransport, type CapturedSms, type MemorySmsTransport } from './sms/memory-transport.js';
export { memoryMailTransport, type MemoryMailTransport } from './mail/memory-transport.js';
export { memoryKvStore } from './kv/memory-kv.js';
export { memoryCounterStore } from './counters/memory-counter-store.js';
export { runKvStoreConformance, type KvStoreCaseName, type KvStoreConformanceOptions } from './kv/conformance.js';
export { runCounterStoreConformance, type CounterStoreCaseName, type CounterStoreConformanceOptions } from './counters/conformance.js';
export type { OptOuts } from './storage/conformance/opt-out.js';
export { runEventBusConformance, type EventBusCaseName, type EventBusConformanceOptions } from './events/conformance.js';
export { memoryEventBus, memoryEventHub, type MemoryEventHub } from './events/memory-event-bus.js';
export { runFileStoreConformance, type FileStoreCaseName, type FileStoreConformanceOptions } from './files/conformance.js';
export { startFakeWechatPlatform, type FakeWechatPlatform, type FakeWechatPlatformOptions, type FakePlatformCall } from './testing/fake-wechat-platform.js';
