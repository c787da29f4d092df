import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';
import { createAccessTokens } from '../../src/wechat/access-tokens.js';
import { type FakeWechatPlatform, startFakeWechatPlatform } from '../../src/testing/fake-wechat-platform.js';

describe('access-token cache', () => {
  let platform: FakeWechatPlatform;
  beforeAll(async () => {
    platform = await startFakeWechatPlatform();
  });
  afterAll(() => platform.close());

  it('never hands a token cached for an appid to a caller with the wrong secret, even while it is fetched', async () => {
    const tokens = createAccessTokens({ kv: memoryKvStore(), clock: new FakeClock(1_000) });
    const right = { appId: platform.appId, secret: platform.secret, apiBase: platform.url, timeoutMs: 5000 };
    const wrong = { ...right, secret: 'guessed' };
    // Both at once: the wrong one must not join the right one's fetch.
    const [good, bad] = await Promise.allSettled([tokens.get(right), tokens.get(wrong)]);
    expect(good.status).toBe('fulfilled');
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: 301 } });
    // And later: the cached token stays with the right secret only.
    await expect(tokens.get(wrong)).rejects.toMatchObject({ code: 301 });
    expect(await tokens.get(right)).toBe((good as PromiseFulfilledResult<string>).value);
  });
});
