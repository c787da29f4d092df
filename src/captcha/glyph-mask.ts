import { type Rgb, type RgbImage, blendPixel } from './rgb-image.js';

/**
 * One pre-rasterised glyph: its coverage (0-255) in a tight box, and where in that box the point the
 * glyph is centred on lies (the anchor the renderer places).
 */
export interface GlyphMask {
  readonly width: number;
  readonly height: number;
  readonly anchorX: number;
  readonly anchorY: number;
  readonly alpha: Uint8Array;
}

/** Paints `mask` in `colour` with its anchor at pixel (`x`, `y`), clipped to the image. */
export function drawMask(image: RgbImage, mask: GlyphMask, x: number, y: number, colour: Rgb): void {
  const left = x - mask.anchorX;
  const top = y - mask.anchorY;
  const fromX = Math.max(0, -left);
  const toX = Math.min(mask.width, image.width - left);
  const fromY = Math.max(0, -top);
  const toY = Math.min(mask.height, image.height - top);
  for (let my = fromY; my < toY; my++) {
    const row = my * mask.width;
    const out = ((top + my) * image.width + left) * 3;
    for (let mx = fromX; mx < toX; mx++) {
      const a = mask.alpha[row + mx]!;
      if (a !== 0) blendPixel(image.pixels, out + mx * 3, colour, a);
    }
  }
}
