import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCaptchaText } from '../../src/captcha/alphabet.js';
import { loadCanvasModule } from '../../src/captcha/canvas-module.js';
import { createCanvasRenderer } from '../../src/captcha/canvas-renderer.js';
import { bundledFontPaths } from '../../src/captcha/captcha-fonts.js';
import { seededRandom } from '../../src/core/random.js';
import { PNG } from 'pngjs';
import { encodeRgbPng } from '../../src/captcha/png-encode.js';
import { PNG_SIGNATURE, readPngHeader } from './png-header.js';

const renderer = createCanvasRenderer();

describe('canvas captcha renderer', () => {
  it('produces PNG bytes of the requested size, at the corners and the default of the ranges', () => {
    for (const [width, height, size] of [[85, 30, 4], [60, 30, 3], [60, 30, 6], [200, 100, 6], [200, 30, 3], [60, 100, 6], [120, 40, 5]] as const) {
      const random = seededRandom(width * height + size);
      const png = renderer.render(generateCaptchaText(random, size), width, height, random);
      expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
      expect(readPngHeader(png)).toMatchObject({ width, height, bitDepth: 8 });
      expect(png.length).toBeLessThan(64 * 1024);
    }
  });

  it('is reproducible: the same text and seed give the same bytes', () => {
    const a = renderer.render('k7eP', 85, 30, seededRandom(7));
    const b = renderer.render('k7eP', 85, 30, seededRandom(7));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it('varies with the seed (noise, colours, placement) and with the text', () => {
    const base = Buffer.from(renderer.render('k7eP', 85, 30, seededRandom(7)));
    expect(base.equals(Buffer.from(renderer.render('k7eP', 85, 30, seededRandom(8))))).toBe(false);
    expect(base.equals(Buffer.from(renderer.render('k7eR', 85, 30, seededRandom(7))))).toBe(false);
  });

  it('draws with a font given by path (fontPath option)', () => {
    const custom = createCanvasRenderer({ fontPath: bundledFontPaths()[1] as string });
    const png = custom.render('AbC3', 85, 30, seededRandom(1));
    expect(readPngHeader(png)).toMatchObject({ width: 85, height: 30 });
    expect(Buffer.from(png).equals(Buffer.from(renderer.render('AbC3', 85, 30, seededRandom(1))))).toBe(false);
  });

  it('fix 11.10: the bundled fonts are small subsets shipped with their licence', () => {
    const paths = bundledFontPaths();
    expect(paths).toHaveLength(2);
    for (const path of paths) expect(statSync(path).size).toBeLessThan(32 * 1024);
    expect(readFileSync(join(dirname(paths[0] as string), 'LICENSE-DejaVu.txt'), 'utf8')).toMatch(/Bitstream Vera/);
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { files: string[]; dependencies?: Record<string, string> };
    expect(pkg.files).toContain('assets');
    expect(pkg.dependencies?.['dejavu-fonts-ttf']).toBeUndefined();
  });

  it('says which font file failed to load, on first render', () => {
    const broken = createCanvasRenderer({ fontPath: createRequire(import.meta.url).resolve('../../package.json') });
    expect(() => broken.render('AbC3', 85, 30, seededRandom(1))).toThrow(/\[svcbase\] \[captcha\] could not load the font file .*package\.json/);
  });

  it('explains how to fix a missing @napi-rs/canvas', () => {
    const missing = () => {
      throw Object.assign(new Error("Cannot find module '@napi-rs/canvas'"), { code: 'MODULE_NOT_FOUND' });
    };
    expect(() => loadCanvasModule(missing)).toThrow(/\[svcbase\] \[captcha\] .*npm install @napi-rs\/canvas/);
    expect(() => loadCanvasModule(() => ({}))).toThrow(/\[svcbase\] \[captcha\]/);
  });

  it('takes an injected canvas module (for bundlers) instead of loading one', () => {
    const canvas = loadCanvasModule();
    const injected = createCanvasRenderer({ canvas });
    expect(readPngHeader(injected.render('xyz', 60, 30, seededRandom(2)))).toMatchObject({ width: 60, height: 30 });
  });
});

describe('the captcha PNG encoder', () => {
  it('writes opaque pixels that a PNG decoder reads back exactly (RGB, Sub filter, CRCs)', () => {
    const width = 37;
    const height = 11;
    const random = seededRandom(9);
    const rgb = new Uint8Array(width * height * 3);
    for (let i = 0; i < rgb.length; i++) rgb[i] = random.int(256);
    const decoded = PNG.sync.read(Buffer.from(encodeRgbPng(rgb, width, height)));
    expect([decoded.width, decoded.height]).toEqual([width, height]);
    const rgba = new Uint8Array(width * height * 4);
    for (let p = 0; p < width * height; p++) rgba.set([rgb[p * 3]!, rgb[p * 3 + 1]!, rgb[p * 3 + 2]!, 255], p * 4);
    expect(Buffer.from(decoded.data).equals(Buffer.from(rgba))).toBe(true);
  });

  it('encodes what the renderer drew: a real image, not a flat one', () => {
    const decoded = PNG.sync.read(Buffer.from(renderer.render('k7eP', 85, 30, seededRandom(3))));
    const colours = new Set<number>();
    for (let i = 0; i < decoded.data.length; i += 4) colours.add(decoded.data.readUInt32BE(i));
    expect(colours.size).toBeGreaterThan(50);
  });

  it('draws every glyph at full size: changing any one glyph changes a glyph-sized area', () => {
    for (const seed of [11, 12, 13, 14, 15, 16]) {
      const pixels = (text: string) => PNG.sync.read(Buffer.from(renderer.render(text, 85, 30, seededRandom(seed)))).data;
      const base = pixels('kkkk');
      for (let i = 0; i < 4; i++) {
        // The same seed draws the same noise, placement, faces and colours: only glyph i differs.
        const other = pixels('kkkk'.slice(0, i) + 'x' + 'kkkk'.slice(i + 1));
        let changed = 0;
        for (let p = 0; p < base.length; p += 4) if (base.readUInt32BE(p) !== other.readUInt32BE(p)) changed++;
        expect(changed, `seed ${seed}, glyph ${i}`).toBeGreaterThan(40);
      }
    }
  });
});
