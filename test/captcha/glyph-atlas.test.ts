import { deflateSync, crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadCanvasModule } from '../../src/captcha/canvas-module.js';
import { bundledFontPaths, registerCaptchaFonts } from '../../src/captcha/captcha-fonts.js';
import { GLYPH_ROTATIONS, GLYPH_SCALES, GLYPH_SHEARS, createGlyphAtlas } from '../../src/captcha/glyph-atlas.js';
import { tableCrc32 } from '../../src/captcha/png-encode.js';
import { createRgbImage, fillImage } from '../../src/captcha/rgb-image.js';
import { strokeCubic } from '../../src/captcha/stroke-curve.js';

const canvas = loadCanvasModule();
const [family] = registerCaptchaFonts(canvas, bundledFontPaths()) as [string];
const layout = { family, basePx: 24, squeeze: 0.9 };
const upright = { rotation: (GLYPH_ROTATIONS.length - 1) / 2, scale: 1, shear: 1 };

describe('glyph atlas', () => {
  it('rasterises a glyph once per layout and hands out the same masks after', () => {
    const atlas = createGlyphAtlas(canvas);
    const first = atlas.mask(layout, 'K', upright);
    const held = atlas.bytes();
    expect(first.width * first.height).toBeGreaterThan(100);
    expect(atlas.mask(layout, 'K', upright)).toBe(first);
    expect(atlas.bytes()).toBe(held);
  });

  it('gives each rotation, scale and shear its own shape, anchored near the glyph centre', () => {
    const atlas = createGlyphAtlas(canvas);
    const shapes = new Set<string>();
    for (let rotation = 0; rotation < GLYPH_ROTATIONS.length; rotation++) {
      for (let scale = 0; scale < GLYPH_SCALES.length; scale++) {
        for (let shear = 0; shear < GLYPH_SHEARS.length; shear++) {
          const mask = atlas.mask(layout, 'K', { rotation, scale, shear });
          expect(Math.abs(mask.anchorX - mask.width / 2)).toBeLessThan(mask.width / 3);
          expect(Math.abs(mask.anchorY - mask.height / 2)).toBeLessThan(mask.height / 3);
          shapes.add(Buffer.from(mask.alpha).toString('base64'));
        }
      }
    }
    expect(shapes.size).toBe(GLYPH_ROTATIONS.length * GLYPH_SCALES.length * GLYPH_SHEARS.length);
  });

  it('keeps within its byte budget by dropping the least recently grown layouts', () => {
    // One 'W' in all its variants takes 25-45 KB at these sizes: the budget holds two or three.
    const atlas = createGlyphAtlas(canvas, 100_000);
    const first = atlas.mask({ ...layout, basePx: 20 }, 'W', upright);
    for (const basePx of [21, 22, 23, 24, 25, 26]) {
      atlas.mask({ ...layout, basePx }, 'W', upright);
      expect(atlas.bytes()).toBeLessThanOrEqual(100_000);
    }
    const newest = atlas.mask({ ...layout, basePx: 26 }, 'W', upright);
    expect(atlas.mask({ ...layout, basePx: 26 }, 'W', upright)).toBe(newest);
    expect(atlas.mask({ ...layout, basePx: 20 }, 'W', upright)).not.toBe(first); // dropped, then rebuilt
  });
});

describe('captcha strokes and PNG checksums', () => {
  it('strokes a curve through the pixels it passes and leaves the scratch coverage zero', () => {
    const image = createRgbImage(40, 20);
    fillImage(image, [255, 255, 255]);
    const coverage = new Uint8Array(40 * 20);
    strokeCubic(image, [2, 10, 12, 10, 28, 10, 38, 10], 2, [0, 0, 0], 1, { coverage, touched: new Int32Array(40 * 20) });
    const at = (x: number, y: number) => image.pixels[(y * 40 + x) * 3]!;
    expect(at(20, 9)).toBe(0); // on the line (y = 10 lies between rows 9 and 10)
    expect(at(20, 10)).toBe(0);
    expect(at(20, 3)).toBe(255); // far from it
    expect(at(0, 10)).toBe(255); // before the round cap
    expect(coverage.every((c) => c === 0)).toBe(true);
  });

  it('computes the same CRC-32 in JavaScript as zlib (for Node versions without zlib.crc32)', () => {
    const bytes = deflateSync(Buffer.from('captcha '.repeat(50)));
    expect(tableCrc32(bytes)).toBe(crc32(bytes));
    expect(tableCrc32(new Uint8Array(0))).toBe(0);
  });
});
