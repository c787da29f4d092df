import type { CanvasModuleShape } from './canvas-module.js';
import type { GlyphMask } from './glyph-mask.js';

/** Rotations (radians), scales and shears a glyph is pre-rasterised at: 9 x 3 x 3 = 81 variants. */
export const GLYPH_ROTATIONS = steps(-0.42, 0.42, 9);
export const GLYPH_SCALES = steps(0.85, 1.05, 3);
export const GLYPH_SHEARS = steps(-0.25, 0.25, 3);
const VARIANTS = GLYPH_ROTATIONS.length * GLYPH_SCALES.length * GLYPH_SHEARS.length;

/** Which variant of a glyph to draw: indexes into the three lists above. */
export interface GlyphVariant {
  readonly rotation: number;
  readonly scale: number;
  readonly shear: number;
}

/** How glyphs of one image size are drawn: the face, the base size in pixels and a horizontal squeeze. */
export interface GlyphLayout {
  readonly family: string;
  readonly basePx: number;
  readonly squeeze: number;
}

/**
 * Pre-rasterised glyph masks, built lazily: the first time a glyph is drawn in a layout, Skia
 * rasterises all its variants on one canvas in one pass, and later images only composite them.
 * Memory is bounded: past `budgetBytes` the oldest layouts are dropped (and rebuilt if used again).
 */
export interface GlyphAtlas {
  mask(layout: GlyphLayout, glyph: string, variant: GlyphVariant): GlyphMask;
  /** Bytes of mask data held (for tests and the performance notes). */
  bytes(): number;
}

/** About 3 MB holds every variant of the captcha alphabet in both bundled faces at 85x30. */
const DEFAULT_BUDGET = 32 * 1024 * 1024;

export function createGlyphAtlas(canvas: CanvasModuleShape, budgetBytes = DEFAULT_BUDGET): GlyphAtlas {
  const layouts = new Map<string, { glyphs: Map<string, GlyphMask[]>; bytes: number }>();
  let total = 0;
  return {
    mask(layout, glyph, { rotation, scale, shear }) {
      const key = `${layout.family}|${layout.basePx}|${layout.squeeze}`;
      let entry = layouts.get(key);
      if (!entry) layouts.set(key, (entry = { glyphs: new Map(), bytes: 0 }));
      let masks = entry.glyphs.get(glyph);
      if (!masks) {
        masks = rasteriseVariants(canvas, layout, glyph);
        const size = masks.reduce((sum, m) => sum + m.alpha.length, 0);
        entry.glyphs.set(glyph, masks);
        entry.bytes += size;
        total += size;
        // Most recently grown last; drop from the front until the budget holds (never the one in use).
        layouts.delete(key);
        layouts.set(key, entry);
        for (const [other, held] of layouts) {
          if (total <= budgetBytes || held === entry) break;
          layouts.delete(other);
          total -= held.bytes;
        }
      }
      return masks[(rotation * GLYPH_SCALES.length + scale) * GLYPH_SHEARS.length + shear] as GlyphMask;
    },
    bytes: () => total,
  };
}

/** Every variant of one glyph, drawn in a grid of cells on one canvas and cut out to tight boxes. */
function rasteriseVariants(canvas: CanvasModuleShape, layout: GlyphLayout, glyph: string): GlyphMask[] {
  // A cell holds the glyph at the largest scale, rotated and sheared, with a margin.
  const cell = Math.ceil(layout.basePx * 1.8) + 4;
  const centre = Math.floor(cell / 2);
  const columns = GLYPH_ROTATIONS.length;
  const rows = VARIANTS / columns;
  const surface = canvas.createCanvas(columns * cell, rows * cell);
  const g = surface.getContext('2d');
  g.font = `${layout.basePx}px "${layout.family}"`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillStyle = '#fff';
  const origins: Array<[number, number]> = [];
  // The same order as `mask` indexes: rotation, then scale, then shear.
  for (const rotation of GLYPH_ROTATIONS) {
    for (const scale of GLYPH_SCALES) {
      for (const shear of GLYPH_SHEARS) {
        const index = origins.length;
        const x = (index % columns) * cell;
        const y = Math.floor(index / columns) * cell;
        origins.push([x, y]);
        g.setTransform(1, 0, 0, 1, x + centre, y + centre);
        g.rotate(rotation);
        g.transform(layout.squeeze * scale, 0, shear * scale, scale, 0, 0);
        g.fillText(glyph, 0, 0);
      }
    }
  }
  const rgba = g.getImageData(0, 0, columns * cell, rows * cell).data;
  return origins.map(([x, y]) => cutOut(rgba, columns * cell, x, y, cell, centre));
}

/** The alpha of one cell, trimmed to the pixels the glyph touches. */
function cutOut(rgba: Uint8ClampedArray, stride: number, x0: number, y0: number, cell: number, centre: number): GlyphMask {
  let left = cell;
  let right = -1;
  let top = cell;
  let bottom = -1;
  for (let y = 0; y < cell; y++) {
    for (let x = 0; x < cell; x++) {
      if (rgba[((y0 + y) * stride + x0 + x) * 4 + 3] === 0) continue;
      if (x < left) left = x;
      if (x > right) right = x;
      if (y < top) top = y;
      if (y > bottom) bottom = y;
    }
  }
  if (right < 0) return { width: 0, height: 0, anchorX: 0, anchorY: 0, alpha: new Uint8Array(0) };
  const width = right - left + 1;
  const height = bottom - top + 1;
  const alpha = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) alpha[y * width + x] = rgba[((y0 + top + y) * stride + x0 + left + x) * 4 + 3]!;
  }
  return { width, height, anchorX: centre - left, anchorY: centre - top, alpha };
}

function steps(from: number, to: number, count: number): readonly number[] {
  return Array.from({ length: count }, (_, i) => from + ((to - from) * i) / (count - 1));
}
