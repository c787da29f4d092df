import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import type { Logger } from '../../src/core/logger.js';
import { memoryMailTransport } from '../../src/mail/index.js';
import { memoryStorage } from '../../src/memory.js';
import { createService } from '../../src/service.js';
import { gatedHasher } from '../../src/users/hash-gate.js';
import type { PasswordHasher } from '../../src/users/password-hash.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { FAST_SCRYPT, type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const LIMIT = { users: { signUpLimits: [{ limit: 10, windowMs: 60_000 }] } };

describe('sign-up limit per client address', () => {
  it('sign-up limit: of 40 parallel sign-ups from one address exactly 10 are accepted, the rest 10076 with Retry-After', async () => {
    s = await startUsersServer({ settings: LIMIT });
    const server = s;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => server.request('POST', i % 2 ? '/1/users' : '/1/classes/_User', { body: { username: `u${i}`, password: 'pw' } })),
    );
    const accepted = results.filter((r) => r.status === 201);
    const limited = results.filter((r) => r.status === 429);
    expect(accepted).toHaveLength(10);
    expect(limited).toHaveLength(30);
    for (const r of limited) {
      expect(r.body.code).toBe(10076);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const count = await server.request('GET', '/1/users?count=1&limit=0', { auth: 'master' });
    expect(count.body.count).toBe(10);
    server.clock.advance(60_000);
    expect((await server.request('POST', '/1/users', { body: { username: 'later', password: 'pw' } })).status).toBe(201);
  });

  it('sign-up limit: master-key callers are not counted', async () => {
    s = await startUsersServer({ settings: LIMIT });
    for (let i = 0; i < 12; i++) {
      expect((await s.request('POST', '/1/users', { body: { username: `m${i}`, password: 'pw' }, auth: 'master' })).status).toBe(201);
    }
    expect((await s.request('POST', '/1/users', { body: { username: 'client', password: 'pw' } })).status).toBe(201);
  });

  it('sign-up limit: without a client address nobody shares a bucket; the skip is logged once', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => void warnings.push(message) };
    const service = createService({
      storage: memoryStorage(),
      clock: new FakeClock(Date.UTC(2026, 0, 1)),
      applications: [{ ...TEST_APP, settings: LIMIT }],
      captcha: false,
      mail: memoryMailTransport(),
      users: { scrypt: FAST_SCRYPT },
      logger,
    });
    try {
      for (let i = 0; i < 12; i++) {
        const body = new TextEncoder().encode(JSON.stringify({ username: `n${i}`, password: 'pw' }));
        const headers = { ...Object.fromEntries(Object.entries(appHeaders()).map(([k, v]) => [k.toLowerCase(), v])), 'content-type': 'application/json' };
        const res = await service.handle({ method: 'POST', path: '/1/users', search: '', headers, body, baseUrl: 'http://x' });
        expect(res.status).toBe(201);
      }
      expect(warnings.filter((w) => w.includes('signUpLimits'))).toHaveLength(1);
    } finally {
      await service.close();
    }
  });
});

describe('password hashing with bounded concurrency', () => {
  /** A hasher whose hashes finish only when the test says so, tracking how many run at once. */
  function manualHasher() {
    const pending: Array<() => void> = [];
    let running = 0;
    let peak = 0;
    const work = () =>
      new Promise<string>((resolve) => {
        running++;
        peak = Math.max(peak, running);
        pending.push(() => {
          running--;
          resolve('hash');
        });
      });
    const hasher: PasswordHasher = { hash: work, verify: async () => (await work()) === 'hash', verifyDummy: async () => void (await work()), needsRehash: () => false };
    return { hasher, pending, peak: () => peak };
  }

  it('sign-up limit: at most `concurrency` hashes run, `queue` wait, the rest answer 11102 at once', async () => {
    const { hasher, pending, peak } = manualHasher();
    const gated = gatedHasher(hasher, { concurrency: 2, queue: 3 });
    const outcomes = Array.from({ length: 8 }, (_, i) => (i % 2 ? gated.hash('pw') : gated.verify('pw', 'x')).then(() => 'ok', (e: unknown) => (isSvcError(e) ? e.code : e)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(pending).toHaveLength(2);
    while (pending.length > 0) {
      pending.shift()!();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await Promise.all(outcomes);
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(results.filter((r) => r === 11102)).toHaveLength(3);
    expect(peak()).toBe(2);
  });
});
