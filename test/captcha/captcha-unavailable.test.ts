import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStorage } from '../../src/memory.js';
import { createService } from '../../src/service.js';
import type { Logger } from '../../src/core/logger.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const missingCanvas = (id: string): never => {
  throw Object.assign(new Error(`Cannot find module '${id}'`), { code: 'MODULE_NOT_FOUND' });
};

function recordingLogger(): Logger & { lines: Array<[string, string]> } {
  const lines: Array<[string, string]> = [];
  const log = (level: string) => (message: string) => void lines.push([level, message]);
  return { lines, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

describe('captcha without @napi-rs/canvas', () => {
  it('fix 11.7: the service starts, logs one clear line, and requestCaptcha answers 11007 (not a bare 500)', async () => {
    const logger = recordingLogger();
    server = await startTestServer({ logger, captcha: { loadCanvas: missingCanvas } });
    expect(logger.lines.filter(([level]) => level === 'warn')).toEqual([['warn', expect.stringContaining('npm install @napi-rs/canvas')]]);
    for (const body of [undefined, {}, { width: 100 }]) {
      const res = await server.request('POST', '/1/requestCaptcha', { body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 11007, error: expect.stringContaining('@napi-rs/canvas could not be loaded') });
    }
    expect(logger.lines.filter(([level]) => level === 'error')).toEqual([]);
  });

  it('fix 11.7: a module that loads but is not the canvas module counts as missing too', async () => {
    server = await startTestServer({ captcha: { loadCanvas: () => ({}) } });
    expect((await server.request('POST', '/1/requestCaptcha', { body: {} })).body.code).toBe(11007);
  });

  it('fix 11.7: with the canvas module installed, the default captcha works', async () => {
    const logger = recordingLogger();
    server = await startTestServer({ logger });
    const res = await server.request('POST', '/1/requestCaptcha', { body: {} });
    expect(res.status).toBe(200);
    expect(res.body.captcha_token).toMatch(/^[0-9A-Za-z]{20}$/);
    expect(logger.lines.filter(([level]) => level === 'warn')).toEqual([]);
  });

  it('fix 11.6: a fontPath that is not a font fails createService with a clear error, not the first captcha with a 500', async () => {
    const notAFont = createRequire(import.meta.url).resolve('../../package.json');
    const start = () => createService({ storage: memoryStorage(), applications: [TEST_APP], captcha: { fontPath: notAFont } });
    expect(start).toThrow(/\[svcbase\] \[captcha\] could not load the font file .*package\.json/);
    // The shipped subset (D34): the full dejavu-fonts-ttf package is no dependency, so a fresh clone lacks it.
    const font = createRequire(import.meta.url).resolve('../../assets/fonts/DejaVuSans-Bold.ttf');
    server = await startTestServer({ captcha: { fontPath: font } });
    expect((await server.request('POST', '/1/requestCaptcha', { body: {} })).status).toBe(200);
  });
});
