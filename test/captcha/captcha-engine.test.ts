import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { CAPTCHA_SYMBOLS } from '../../src/captcha/alphabet.js';
import { createCaptchaEngine } from '../../src/captcha/captcha-engine.js';
import { createCaptchaSecrets } from '../../src/captcha/captcha-secrets.js';
import type { CaptchaParams } from '../../src/captcha/captcha-params.js';
import { FakeClock } from '../../src/core/clock.js';
import { isSvcError } from '../../src/core/errors.js';
import { seededRandom } from '../../src/core/random.js';
import type { KvStore } from '../../src/kv/port.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';
import { sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { appA, appB, recordingRenderer } from './fixtures.js';

const DEFAULTS: CaptchaParams = { width: 85, height: 30, size: 4, ttl: 60 };
const VALIDATE_TTL = 10 * 60 * 1000;

/** Engines sharing a store share this captcha secret (the option hosts set on every instance). */
const SHARED_SECRET = 'a shared captcha secret, 32 bytes';

function setup(seed = 1, kv: KvStore = memoryKvStore(), secret?: string) {
  const clock = new FakeClock();
  const renderer = recordingRenderer();
  const secrets = createCaptchaSecrets(seededRandom(seed + 1000), secret);
  const engine = createCaptchaEngine({ kv, clock, random: seededRandom(seed), renderer, secrets, validateTokenTtlMs: VALIDATE_TTL });
  const issue = async (params: CaptchaParams = DEFAULTS, app = appA) => {
    const { token } = await engine.issue(app, params);
    return { token, answer: renderer.texts.at(-1) as string };
  };
  return { clock, renderer, engine, issue, kv };
}

async function codeOf(promise: Promise<unknown>): Promise<number | 'ok'> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
}

function wrongAnswer(answer: string): string {
  const first = answer[0]?.toLowerCase();
  const other = CAPTCHA_SYMBOLS.split('').find((s) => s !== first) as string;
  return other + answer.slice(1);
}

describe('captcha engine: issue and image', () => {
  it('issues a 20-character alphanumeric token and an answer of `size` unambiguous symbols', async () => {
    const { issue, renderer } = setup();
    for (const size of [3, 4, 5, 6]) {
      const { token, answer } = await issue({ ...DEFAULTS, size });
      expect(token).toMatch(/^[0-9A-Za-z]{20}$/);
      expect(answer).toHaveLength(size);
      for (const ch of answer) expect(CAPTCHA_SYMBOLS).toContain(ch.toLowerCase());
    }
    expect(renderer.texts).toHaveLength(4);
  });

  it('renders once at issue: every fetch returns the same bytes, without rendering again', async () => {
    const { issue, engine, renderer } = setup();
    const { token } = await issue({ width: 120, height: 40, size: 5, ttl: 60 });
    const first = await engine.image(appA, token);
    expect(new TextDecoder().decode(first)).toMatch(/^png:\w{5}:120x40:/);
    expect(await engine.image(appA, token)).toEqual(first);
    expect(renderer.texts).toHaveLength(1);
  });

  it('keeps a digest of the answer, never the answer itself', async () => {
    const kv = memoryKvStore();
    const seen: string[] = [];
    const spy: KvStore = { ...kv, putIfAbsent: (k, v, e, n) => (seen.push(v), kv.putIfAbsent(k, v, e, n)) };
    const { issue } = setup(3, spy);
    const { answer } = await issue();
    const stored = JSON.parse(seen[0] as string) as Record<string, string>;
    expect(Object.keys(stored).sort()).toEqual(['answer', 'png']);
    expect(stored.answer).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.answer?.toLowerCase()).not.toContain(answer.toLowerCase());
  });

  it('serves the image until the ttl ends, then answers 11010', async () => {
    const { issue, engine, clock } = setup();
    const { token } = await issue({ ...DEFAULTS, ttl: 90 });
    clock.advance(90_000 - 1);
    await expect(codeOf(engine.image(appA, token))).resolves.toBe('ok');
    clock.advance(1);
    await expect(codeOf(engine.image(appA, token))).resolves.toBe(11010);
  });

  it('refuses the image of an unknown, malformed or foreign token with 11010', async () => {
    const { issue, engine } = setup();
    const { token } = await issue();
    await expect(codeOf(engine.image(appA, 'A'.repeat(20)))).resolves.toBe(11010);
    await expect(codeOf(engine.image(appA, `${token}x`))).resolves.toBe(11010);
    await expect(codeOf(engine.image(appA, '../../etc/passwd'))).resolves.toBe(11010);
    await expect(codeOf(engine.image(appB, token))).resolves.toBe(11010);
  });
});

describe('captcha engine: verify', () => {
  it('accepts the answer in any case and with surrounding spaces, and returns a validate_token', async () => {
    const { issue, engine } = setup();
    for (const variant of [(a: string) => a, (a: string) => a.toUpperCase(), (a: string) => ` ${a.toLowerCase()}\n`]) {
      const { token, answer } = await issue();
      const validateToken = await engine.verify(appA, token, variant(answer));
      expect(validateToken).toMatch(/^[0-9A-Za-z]{32}$/);
    }
  });

  it('allows one guess per image: a wrong code is 11011, and the token is gone afterwards (11010)', async () => {
    const { issue, engine } = setup();
    const { token, answer } = await issue();
    await expect(codeOf(engine.verify(appA, token, wrongAnswer(answer)))).resolves.toBe(11011);
    await expect(codeOf(engine.verify(appA, token, answer))).resolves.toBe(11010);
    await expect(codeOf(engine.image(appA, token))).resolves.toBe(11010);
  });

  it('consumes the token on success too: a second verify with the right code is 11010', async () => {
    const { issue, engine } = setup();
    const { token, answer } = await issue();
    await engine.verify(appA, token, answer);
    await expect(codeOf(engine.verify(appA, token, answer))).resolves.toBe(11010);
  });

  it('counts empty and overlong guesses as wrong (and consumes the token)', async () => {
    const { issue, engine } = setup();
    const one = await issue();
    await expect(codeOf(engine.verify(appA, one.token, ''))).resolves.toBe(11011);
    const two = await issue();
    await expect(codeOf(engine.verify(appA, two.token, two.answer.repeat(100)))).resolves.toBe(11011);
    await expect(codeOf(engine.verify(appA, two.token, two.answer))).resolves.toBe(11010);
  });

  it('gives at most one validate_token under 50 concurrent verifies of one token', async () => {
    const { issue, engine } = setup();
    const { token, answer } = await issue();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => codeOf(engine.verify(appA, token, answer))));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 11010)).toHaveLength(49);
  });

  it('gives at most one validate_token under 50 concurrent verifies over a store with real awaits', async () => {
    const kv = memoryKvStore();
    const slow: KvStore = { ...kv, take: async (k, now) => (await Promise.resolve(), kv.take(k, now)) };
    const { issue, engine } = setup(9, slow);
    const { token, answer } = await issue();
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => codeOf(engine.verify(appA, token, answer))));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
  });

  it('expires the captcha after ttl seconds on the clock (11010)', async () => {
    const { issue, engine, clock } = setup();
    const live = await issue({ ...DEFAULTS, ttl: 60 });
    const dead = await issue({ ...DEFAULTS, ttl: 60 });
    clock.advance(59_999);
    await expect(codeOf(engine.verify(appA, live.token, live.answer))).resolves.toBe('ok');
    clock.advance(1);
    await expect(codeOf(engine.verify(appA, dead.token, dead.answer))).resolves.toBe(11010);
  });

  it('refuses a captcha token of another application (11010) without consuming it', async () => {
    const { issue, engine } = setup();
    const { token, answer } = await issue();
    await expect(codeOf(engine.verify(appB, token, answer))).resolves.toBe(11010);
    await expect(codeOf(engine.verify(appA, token, answer))).resolves.toBe('ok');
  });
});

describe('captcha engine: validate_token', () => {
  async function validated(ctx: ReturnType<typeof setup>): Promise<string> {
    const { token, answer } = await ctx.issue();
    return ctx.engine.verify(appA, token, answer);
  }

  it('is single use: the first consume is true, a replay is false', async () => {
    const ctx = setup();
    const vt = await validated(ctx);
    expect(await ctx.engine.consumeValidateToken(appA, vt)).toBe(true);
    expect(await ctx.engine.consumeValidateToken(appA, vt)).toBe(false);
  });

  it('is bound to its application: another application cannot consume it, and it stays valid', async () => {
    const ctx = setup();
    const vt = await validated(ctx);
    expect(await ctx.engine.consumeValidateToken(appB, vt)).toBe(false);
    expect(await ctx.engine.consumeValidateToken(appA, vt)).toBe(true);
  });

  it('expires after validateTokenTtlMs', async () => {
    const ctx = setup();
    const early = await validated(ctx);
    const late = await validated(ctx);
    ctx.clock.advance(VALIDATE_TTL - 1);
    expect(await ctx.engine.consumeValidateToken(appA, early)).toBe(true);
    ctx.clock.advance(1);
    expect(await ctx.engine.consumeValidateToken(appA, late)).toBe(false);
  });

  it('is false for unknown or malformed tokens', async () => {
    const { engine } = setup();
    expect(await engine.consumeValidateToken(appA, 'x'.repeat(32))).toBe(false);
    expect(await engine.consumeValidateToken(appA, '')).toBe(false);
    expect(await engine.consumeValidateToken(appA, 'captcha:appA:whatever')).toBe(false);
    expect(await engine.consumeValidateToken(appA, undefined as unknown as string)).toBe(false);
  });

  it('lets exactly one of 50 concurrent consumers win', async () => {
    const ctx = setup();
    const vt = await validated(ctx);
    const wins = await Promise.all(Array.from({ length: 50 }, () => ctx.engine.consumeValidateToken(appA, vt)));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });
});

describe('captcha engine: reproducibility', () => {
  it('issues the same token and image from the same seed, and different ones from another seed', async () => {
    const run = async (seed: number) => {
      const { issue, engine } = setup(seed);
      const { token, answer } = await issue();
      return { token, answer, png: await engine.image(appA, token) };
    };
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    expect((await run(43)).token).not.toBe(a.token);
  });
});

describe('captcha engine over the SQLite store (a second instance shares what the first issued)', () => {
  it('verifies on one engine what another issued, once, and never twice under 50 concurrent verifies', async () => {
    const database = new Database(':memory:');
    try {
      const kv = sqliteKvStore({ database });
      const first = setup(21, kv, SHARED_SECRET);
      const second = setup(22, kv, SHARED_SECRET);
      const { token, answer } = await first.issue();
      expect(await second.engine.image(appA, token)).toEqual(await first.engine.image(appA, token));
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => codeOf((i % 2 ? first : second).engine.verify(appA, token, answer))),
      );
      expect(outcomes.filter((o) => o === 'ok')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 11010)).toHaveLength(49);
    } finally {
      database.close();
    }
  });

  it('consumes a validate_token once across engines, and not from another application', async () => {
    const database = new Database(':memory:');
    try {
      const kv = sqliteKvStore({ database });
      const first = setup(23, kv, SHARED_SECRET);
      const second = setup(24, kv, SHARED_SECRET);
      const { token, answer } = await first.issue();
      const vt = await first.engine.verify(appA, token, answer);
      expect(await second.engine.consumeValidateToken(appB, vt)).toBe(false);
      const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? first : second).engine.consumeValidateToken(appA, vt)));
      expect(wins.filter(Boolean)).toHaveLength(1);
    } finally {
      database.close();
    }
  });
});
