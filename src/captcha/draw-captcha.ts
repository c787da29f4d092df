import { GLYPH_ROTATIONS, GLYPH_SCALES, GLYPH_SHEARS, type GlyphAtlas } from './glyph-atlas.js';
import { drawMask } from './glyph-mask.js';
import type { DrawRandom } from './random-draw.js';
import { type RgbImage, fillImage, fillSquare } from './rgb-image.js';
import { type StrokeScratch, strokeCubic } from './stroke-curve.js';

/** Where a captcha is painted: the image, and scratch space for strokes. */
export interface CaptchaSurface {
  readonly image: RgbImage;
  readonly stroke: StrokeScratch;
}

/**
 * Paints a captcha: light background, faint curves and specks behind, then each glyph with its own
 * face, size, colour, rotation, shear and offset (a pre-rasterised variant from `atlas`, chosen at
 * random), then thin curves and specks across the text. Everything random comes from `r`.
 */
export function drawCaptcha(surface: CaptchaSurface, text: string, r: DrawRandom, families: readonly string[], atlas: GlyphAtlas): void {
  const { image } = surface;
  const { width, height } = image;
  fillImage(image, r.colour([20, 60], [91, 97]));
  const area = width * height;
  drawSpecks(image, r, Math.round(area / 45), [1, 2.5], [55, 80]);
  for (let i = 0, n = r.intIn(2, 3); i < n; i++) drawCurve(surface, r, 1, [55, 75], 0.8);
  drawGlyphs(image, text, r, families, atlas);
  const strokeWidth = Math.max(1.1, height / 40);
  for (let i = 0, n = r.intIn(1, 2); i < n; i++) drawCurve(surface, r, strokeWidth, [25, 45], 0.9);
  drawSpecks(image, r, Math.round(area / 180), [1, 2], [25, 50]);
}

function drawGlyphs(image: RgbImage, text: string, r: DrawRandom, families: readonly string[], atlas: GlyphAtlas): void {
  const { width, height } = image;
  const glyphs = [...text];
  const slot = width / (glyphs.length + 0.7);
  // Narrow slots squeeze glyphs horizontally rather than shrinking them: tall glyphs stay legible.
  // Both are rounded so the few image sizes in use share a few atlas layouts.
  const squeeze = Math.round(Math.min(1, Math.max(0.72, (slot * 1.2) / (height * 0.8))) * 50) / 50;
  const basePx = Math.round(Math.min(height * 0.8, (slot * 1.2) / squeeze) * 2) / 2;
  glyphs.forEach((glyph, i) => {
    const scale = r.intIn(0, GLYPH_SCALES.length - 1);
    const x = slot * (i + 0.85) + r.range(-0.1, 0.1) * slot;
    const spareY = Math.max(0, (height - basePx * (GLYPH_SCALES[scale] as number)) / 2);
    const y = height / 2 + r.range(-0.7, 0.7) * spareY;
    const family = families[r.intIn(0, families.length - 1)] as string;
    const variant = { rotation: r.intIn(0, GLYPH_ROTATIONS.length - 1), scale, shear: r.intIn(0, GLYPH_SHEARS.length - 1) };
    drawMask(image, atlas.mask({ family, basePx, squeeze }, glyph, variant), Math.round(x), Math.round(y), r.colour([45, 85], [18, 38]));
  });
}

function drawCurve(surface: CaptchaSurface, r: DrawRandom, lineWidth: number, lightness: readonly [number, number], alpha: number): void {
  const { width, height } = surface.image;
  const colour = r.colour([35, 75], lightness);
  const curve = [
    r.range(0, width * 0.15), r.range(height * 0.2, height * 0.8),
    r.range(width * 0.2, width * 0.45), r.range(-height * 0.2, height * 1.2),
    r.range(width * 0.55, width * 0.8), r.range(-height * 0.2, height * 1.2),
    r.range(width * 0.85, width), r.range(height * 0.2, height * 0.8),
  ] as const;
  strokeCubic(surface.image, curve, lineWidth, colour, alpha, surface.stroke);
}

/** Specks (small squares) in a few colours. */
function drawSpecks(
  image: RgbImage,
  r: DrawRandom,
  count: number,
  size: readonly [number, number],
  lightness: readonly [number, number],
): void {
  const colours = Math.min(count, 4);
  for (let c = 0; c < colours; c++) {
    const colour = r.colour([30, 80], lightness);
    for (let i = c; i < count; i += colours) {
      const side = r.range(size[0], size[1]);
      fillSquare(image, r.range(0, image.width), r.range(0, image.height), side, colour);
    }
  }
}
