import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PNG } from 'pngjs';
import type { ImageChecker } from '../../src/files/index.js';
import { FakeClock } from '../../src/testing.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { type FilesServer, json, md5, now, signedHeaders, startFilesServer } from './helpers.js';

const require = createRequire(import.meta.url);
const jsQR = require('jsqr') as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;

/** Decodes a PNG QR code back to its text. */
function decodeQr(png: Uint8Array): { text: string | undefined; width: number } {
  const image = PNG.sync.read(Buffer.from(png));
  return { text: jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data, width: image.width };
}

describe('QR codes made locally', () => {
  let server: FilesServer;
  const generate = (body: unknown) =>
    fetch(`${server.url}/1/wechatApp/qr/generatecode`, { method: 'POST', headers: { ...appHeaders(TEST_APP), 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);
  beforeAll(async () => {
    server = await startFilesServer();
  });
  afterAll(() => server.close());

  it('type 0 answers a base64 PNG that decodes to the path, at the asked width', async () => {
    const res = await generate({ path: 'pages/index/index?id=42', width: 300 });
    const { text, width } = decodeQr(Buffer.from(res.base64, 'base64'));
    expect(text).toBe('pages/index/index?id=42');
    expect(width).toBe(300);
  });

  it('type 1 stores the PNG as a file of the app; interface b adds the scene', async () => {
    const res = await generate({ path: 'pages/a', width: 200, interface: 'b', scene: 'x=1&y=2', type: 1 });
    expect(res).toMatchObject({ cdn: 'upyun', filename: 'qrcode.png' });
    const served = await fetch(res.url);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(decodeQr(new Uint8Array(await served.arrayBuffer())).text).toBe('pages/a?scene=x%3D1%26y%3D2');
  });

  it('refuses bad input with coded errors', async () => {
    for (const body of [{}, { path: '' }, { path: 'p', width: 179 }, { path: 'p', width: '300' }, { path: 'p', interface: 'd' }, { path: 'p', interface: 'b' }, { path: 'p', type: 2 }, { path: 'x'.repeat(1025) }]) {
      const res = await generate(body);
      expect(res.code, JSON.stringify(body).slice(0, 60)).toBeTypeOf('number');
      expect(res.base64).toBeUndefined();
    }
  });
});

describe('image check: limits, then the platform verdict', () => {
  const code = TEST_APP.securityCode!;
  const nonce = 'AbCdEfGhIjKlMnOp';
  const checkImg = (server: FilesServer, body: Uint8Array) => {
    const ts = now();
    const form = new FormData();
    form.append('file', new Blob([body]), 'tmp.jpg');
    return fetch(`${server.url}/1/wechatApp/checkImg/a.jpg`, {
      method: 'POST',
      headers: { ...signedHeaders(md5(`/1/wechatApp/checkImg/a.jpg${ts}${code}${nonce}`), ts, nonce), 'X-Bmob-SDK-Type': 'wechatApp' },
      body: form,
    }).then(async (r) => ({ status: r.status, body: await json(r) }));
  };
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);

  it('without the platform client: 11152 after the limits, never a made-up verdict', async () => {
    const server = await startFilesServer();
    try {
      expect(await checkImg(server, jpeg)).toMatchObject({ status: 403, body: { code: 11152 } });
      expect((await checkImg(server, new Uint8Array(1024 * 1024 + 1))).body.code).toBe(11140);
    } finally {
      await server.close();
    }
  });

  it('enforces 2000 a minute per application, then passes the platform verdict through', async () => {
    const clock = new FakeClock(Date.now());
    const verdicts: ImageChecker = {
      check: async (_app, image) => (image[4] === 9 ? { ok: false, platformCode: 87014, message: 'risky content' } : { ok: true }),
    };
    const server = await startFilesServer({ imageChecker: verdicts }, { clock });
    try {
      expect((await checkImg(server, jpeg)).body).toEqual({ msg: 'ok' });
      const bad = await checkImg(server, new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 9]));
      expect(bad.body).toEqual({ code: 10007, error: '87014: risky content' });
      const counters = server.service.context.counters;
      for (let i = 0; i < 1998; i++) await counters.consume(`files:checkImg:${TEST_APP.applicationId}`, [{ limit: 2000, windowMs: 60_000 }], clock.now());
      const limited = await checkImg(server, jpeg);
      expect(limited).toMatchObject({ status: 429, body: { code: 11153 } });
    } finally {
      await server.close();
    }
  });
});
