import { describe, expect, it } from 'vitest';
import type { Logger } from '../../src/core/logger.js';
import { TEST_APP, startTestServer } from '../helpers/server.js';

function capture(): Logger & { lines: Array<[string, string, Record<string, unknown> | undefined]> } {
  const lines: Array<[string, string, Record<string, unknown> | undefined]> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => void lines.push([level, message, fields]);
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

describe('access log and request ids', () => {
  it('logs one line per request and puts X-Request-Id on every response', async () => {
    const logger = capture();
    const server = await startTestServer({ accessLog: true, logger, captcha: false, functions: { definitions: { hi: (_q, r) => r.send('hi') } } });
    try {
      const mine = await server.request('GET', '/1/timestamp?secret=not-logged', { headers: { 'x-request-id': 'abc-123' } });
      expect(mine.headers.get('x-request-id')).toBe('abc-123');
      const odd = await server.request('GET', '/1/nowhere', { headers: { 'x-request-id': 'two words' } });
      const generated = odd.headers.get('x-request-id')!;
      expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      // A secret key in the path (plain-HTTP functions) never reaches the log, right or wrong.
      expect(await (await fetch(`${server.url}/${TEST_APP.secretKey}/hi`)).text()).toBe('hi');
      await fetch(`${server.url}/not-the-secret/hi`);
      const info = logger.lines.filter(([level]) => level === 'info');
      expect(info.map(([, message, fields]) => [message.replace(/\d+ms$/, 'Nms'), fields])).toEqual([
        ['GET /1/timestamp 200 Nms', { requestId: 'abc-123' }],
        ['GET /1/nowhere 404 Nms', { requestId: generated }],
        ['GET /<secretKey>/hi 200 Nms', { requestId: expect.any(String) }],
        ['GET /<secretKey>/hi 404 Nms', { requestId: expect.any(String) }],
      ]);
      expect(JSON.stringify(logger.lines)).not.toContain(TEST_APP.secretKey!);
    } finally {
      await server.close();
    }
  });

  it('without the log, echoes only a client id and adds no header of its own', async () => {
    const logger = capture();
    const server = await startTestServer({ logger, captcha: false });
    try {
      expect((await server.request('GET', '/1/timestamp', { headers: { 'x-request-id': 'kept' } })).headers.get('x-request-id')).toBe('kept');
      expect((await server.request('GET', '/1/timestamp')).headers.get('x-request-id')).toBeNull();
      expect(logger.lines.filter(([level]) => level === 'info')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
