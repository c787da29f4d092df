import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { memoryStorage } from '../../src/memory.js';
import { createService } from '../../src/service.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';

describe('requestCaptcha limits without a client address', () => {
  it('are skipped (no shared bucket locking everyone out) and the skip is logged once', async () => {
    const warnings: string[] = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message) => void warnings.push(message) };
    const service = createService({
      storage: memoryStorage(),
      applications: [{ ...TEST_APP, settings: { captcha: { requestLimits: [{ limit: 3, windowMs: 60_000 }] } } }],
      captcha: { renderer: { render: (text) => new TextEncoder().encode(text) } },
      users: false,
      logger,
    });
    try {
      const headers = Object.fromEntries(Object.entries(appHeaders()).map(([k, v]) => [k.toLowerCase(), v]));
      for (let i = 0; i < 6; i++) {
        const res = await service.handle({ method: 'POST', path: '/1/requestCaptcha', search: '', headers, body: null, baseUrl: 'http://x' });
        expect(res.status).toBe(200);
      }
      expect(warnings.filter((w) => w.includes('captcha.requestLimits'))).toHaveLength(1);
    } finally {
      await service.close();
    }
  });
});
