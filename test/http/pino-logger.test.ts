import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { pinoLogger } from '../../src/core/pino-logger.js';
import { startTestServer } from '../helpers/server.js';

describe('pinoLogger', () => {
  it("writes svcbase's log entries as pino JSON lines, the access log included", async () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const logger = pinoLogger(pino({ level: 'debug' }, sink).child({ component: 'svcbase' }));
    const server = await startTestServer({ accessLog: true, logger, captcha: false });
    try {
      await server.request('GET', '/1/timestamp', { headers: { 'x-request-id': 'req-7' } });
      await server.request('GET', '/1/classes/Anything', { auth: false }); // refused: a debug line
      logger.warn('custom', { n: 1 });
    } finally {
      await server.close();
    }
    await new Promise((resolve) => setImmediate(resolve));
    const access = lines.find((l) => l['requestId'] === 'req-7');
    expect(access).toMatchObject({ level: 30, component: 'svcbase', msg: expect.stringMatching(/^GET \/1\/timestamp 200 \d+ms$/) });
    expect(lines.find((l) => l['msg'] === 'request refused')).toMatchObject({ level: 20, reason: expect.any(String) });
    expect(lines.find((l) => l['msg'] === 'custom')).toMatchObject({ level: 40, n: 1 });
  });
});
