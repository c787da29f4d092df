import { describe, expect, it } from 'vitest';
import { resolveApplication } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import { seededRandom } from '../../src/core/random.js';
import { sha256Hex } from '../../src/core/secrets.js';
import { memoryCounterStore } from '../../src/counters/memory-counter-store.js';
import type { CounterStore } from '../../src/counters/port.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';
import { createLinkTokens } from '../../src/users/link-tokens.js';
import { createLoginThrottle } from '../../src/users/login-throttle.js';

const payload = { applicationId: 'app', userId: 'u1', email: 'a@example.com' };

describe('link tokens', () => {
  it('are 64 hex characters, stored only as a hash, usable exactly once', async () => {
    const kv = memoryKvStore();
    const clock = new FakeClock();
    const links = createLinkTokens({ kv, clock, random: seededRandom(1) });
    const token = await links.issue('verify', payload, 60_000);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(await kv.get(`users:link:verify:${token}`, clock.now())).toBeNull();
    expect(await kv.get(`users:link:verify:${sha256Hex(token)}`, clock.now())).not.toBeNull();
    expect(await links.peek('verify', token)).toEqual(payload);
    expect(await links.peek('reset', token)).toBeNull();
    const [a, b] = await Promise.all([links.consume('verify', token), links.consume('verify', token)]);
    expect([a, b].filter(Boolean)).toEqual([payload]);
    expect(await links.consume('verify', token)).toBeNull();
  });

  it('expire', async () => {
    const clock = new FakeClock();
    const links = createLinkTokens({ kv: memoryKvStore(), clock, random: seededRandom(2) });
    const token = await links.issue('reset', payload, 60_000);
    clock.advance(59_999);
    expect(await links.peek('reset', token)).toEqual(payload);
    clock.advance(1);
    expect(await links.consume('reset', token)).toBeNull();
  });

  it('refuse malformed tokens without touching the store', async () => {
    const links = createLinkTokens({ kv: memoryKvStore(), clock: new FakeClock(), random: seededRandom(3) });
    for (const token of ['', 'abc', 'Z'.repeat(64), 'a'.repeat(65)]) expect(await links.consume('verify', token)).toBeNull();
  });
});

describe('login throttle', () => {
  const app = resolveApplication({
    applicationId: 'app',
    restApiKey: 'r',
    masterKey: 'm',
    settings: { users: { loginThrottle: { account: [{ limit: 3, windowMs: 60_000 }], address: [{ limit: 5, windowMs: 60_000 }] } } },
  });

  it('stops an account after its window fills, with a retry-after, until the window slides', async () => {
    const clock = new FakeClock();
    const throttle = createLoginThrottle({ counters: memoryCounterStore(), clock });
    for (let i = 0; i < 3; i++) await throttle.hitAccount(app, 'user:1');
    const error = await throttle.hitAccount(app, 'user:1').catch((e: unknown) => e);
    expect(isSvcError(error) && error.code).toBe(11050);
    expect(isSvcError(error) && error.retryAfter).toBe(60);
    await throttle.hitAccount(app, 'user:2');
    clock.advance(60_000);
    await throttle.hitAccount(app, 'user:1');
  });

  it('resetAccount forgets the account but never the address', async () => {
    const throttle = createLoginThrottle({ counters: memoryCounterStore(), clock: new FakeClock() });
    for (let i = 0; i < 3; i++) await throttle.hitAccount(app, 'user:1');
    await throttle.resetAccount(app, 'user:1');
    await throttle.hitAccount(app, 'user:1');
    for (let i = 0; i < 5; i++) await throttle.hitAddress(app, '10.0.0.1');
    await expect(throttle.hitAddress(app, '10.0.0.1')).rejects.toMatchObject({ code: 11050 });
    await throttle.hitAddress(app, '10.0.0.2');
    await throttle.hitAddress(app, undefined);
  });

  it('fix 11.13: does nothing when disabled: every attempt passes and no counter is touched', async () => {
    const limits = { account: [{ limit: 1, windowMs: 1000 }], address: [{ limit: 1, windowMs: 1000 }] };
    const off = resolveApplication({ applicationId: 'a', restApiKey: 'r', masterKey: 'm', settings: { users: { loginThrottle: { enabled: false, ...limits } } } });
    const on = resolveApplication({ applicationId: 'b', restApiKey: 'r', masterKey: 'm', settings: { users: { loginThrottle: { enabled: true, ...limits } } } });
    const store = memoryCounterStore();
    const touched: string[] = [];
    const counters: CounterStore = {
      consume: (key, windows, now) => (touched.push(key), store.consume(key, windows, now)),
      reset: (key) => (touched.push(key), store.reset(key)),
    };
    const throttle = createLoginThrottle({ counters, clock: new FakeClock() });
    for (let i = 0; i < 5; i++) {
      await expect(throttle.hitAccount(off, 'x')).resolves.toBeUndefined();
      await expect(throttle.hitAddress(off, '10.0.0.1')).resolves.toBeUndefined();
    }
    await throttle.resetAccount(off, 'x');
    expect(touched).toEqual([]);
    // The same limits switched on stop the second attempt: the case above is not vacuous.
    await throttle.hitAccount(on, 'x');
    await expect(throttle.hitAccount(on, 'x')).rejects.toMatchObject({ code: 11050 });
    await throttle.hitAddress(on, '10.0.0.1');
    await expect(throttle.hitAddress(on, '10.0.0.1')).rejects.toMatchObject({ code: 11050 });
    expect(touched.length).toBe(4);
  });

  it('skips the address limit without a client address (no shared bucket) and says so once', async () => {
    const app = resolveApplication({ applicationId: 'a', restApiKey: 'r', masterKey: 'm', settings: { users: { loginThrottle: { address: [{ limit: 1, windowMs: 60_000 }] } } } });
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
    const throttle = createLoginThrottle({ counters: memoryCounterStore(), clock: new FakeClock(), logger });
    for (let i = 0; i < 5; i++) await throttle.hitAddress(app, undefined);
    expect(warnings).toHaveLength(1);
  });
});
