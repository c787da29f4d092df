import { type Rgb, type RgbImage, blendPixel } from './rgb-image.js';

/** A cubic Bézier curve: start, two control points, end (x, y pairs). */
export type Cubic = readonly [number, number, number, number, number, number, number, number];

/** Scratch space of a stroke, one entry per pixel: `coverage` all zero (and left so), `touched` any. */
export interface StrokeScratch {
  readonly coverage: Uint8Array;
  readonly touched: Int32Array;
}

/**
 * Strokes a cubic Bézier `lineWidth` pixels wide with round caps, anti-aliased, at opacity `alpha`.
 * The curve is flattened into short segments; each pixel's coverage comes from its distance to the
 * nearest one, and is the most any segment gives it (never summed, so a pixel the line crosses twice
 * is painted once, as a canvas stroke paints it).
 */
export function strokeCubic(image: RgbImage, curve: Cubic, lineWidth: number, colour: Rgb, alpha: number, scratch: StrokeScratch): void {
  const { coverage, touched } = scratch;
  const [x0, y0, x1, y1, x2, y2, x3, y3] = curve;
  const { width, height } = image;
  const half = lineWidth / 2;
  const reach = half + 0.5;
  const reach2 = reach * reach;
  // Pixels nearer than this are fully covered.
  const inner2 = half > 0.5 ? (half - 0.5) ** 2 : -1;
  // Segments of about 4 pixels along the control polygon (longer than the curve): at the gentle
  // curvature of captcha curves (radius 20 pixels or more) a chord that short strays from the curve
  // by about 0.1 pixel.
  const segments = Math.max(1, Math.ceil((Math.hypot(x1 - x0, y1 - y0) + Math.hypot(x2 - x1, y2 - y1) + Math.hypot(x3 - x2, y3 - y2)) / 4));
  // Pixels given coverage are listed in `touched`, so only they are painted (and zeroed) afterwards.
  let count = 0;
  let ax = x0;
  let ay = y0;
  for (let s = 1; s <= segments; s++) {
    const t = s / segments;
    const u = 1 - t;
    const bx = u * u * u * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t * t * t * x3;
    const by = u * u * u * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t * t * t * y3;
    const fromX = Math.max(0, Math.floor(Math.min(ax, bx) - reach));
    const toX = Math.min(width - 1, Math.floor(Math.max(ax, bx) + reach));
    const fromY = Math.max(0, Math.floor(Math.min(ay, by) - reach));
    const toY = Math.min(height - 1, Math.floor(Math.max(ay, by) + reach));
    const dx = bx - ax;
    const dy = by - ay;
    const length2 = dx * dx + dy * dy || 1;
    for (let y = fromY; y <= toY; y++) {
      for (let x = fromX; x <= toX; x++) {
        // Distance from the pixel's centre to the segment; coverage ramps over one pixel at the edge.
        const cx = x + 0.5 - ax;
        const cy = y + 0.5 - ay;
        const along = Math.max(0, Math.min(1, (cx * dx + cy * dy) / length2));
        const ex = cx - along * dx;
        const ey = cy - along * dy;
        const distance2 = ex * ex + ey * ey;
        if (distance2 >= reach2) continue;
        const c = distance2 <= inner2 ? 255 : Math.round((reach - Math.sqrt(distance2)) * 255);
        const i = y * width + x;
        const before = coverage[i]!;
        if (c <= before) continue;
        if (before === 0) touched[count++] = i;
        coverage[i] = c;
      }
    }
    ax = bx;
    ay = by;
  }
  for (let k = 0; k < count; k++) {
    const i = touched[k]!;
    blendPixel(image.pixels, i * 3, colour, Math.round(coverage[i]! * alpha));
    coverage[i] = 0;
  }
}
