import { type CanvasModuleShape, loadCanvasModule } from './canvas-module.js';
import { bundledFontPaths, registerCaptchaFonts } from './captcha-fonts.js';
import { type CaptchaSurface, drawCaptcha } from './draw-captcha.js';
import { type GlyphAtlas, createGlyphAtlas } from './glyph-atlas.js';
import { encodeRgbPng } from './png-encode.js';
import { drawRandom } from './random-draw.js';
import type { SyncCaptchaRenderer } from './renderer.js';
import { createRgbImage } from './rgb-image.js';

/** Image sizes whose buffers a renderer keeps (captcha sizes are few; the parameters bound them anyway). */
const MAX_SIZES = 16;

/** Options of {@link createCanvasRenderer}. */
export interface CanvasRendererOptions {
  /**
   * Font file(s) to draw glyphs with (TrueType/OpenType), one picked per glyph. Default: DejaVu Sans
   * Bold and DejaVu Sans Mono Bold, subset to the captcha alphabet and shipped in assets/fonts.
   */
  fontPath?: string | readonly string[];
  /** The `@napi-rs/canvas` module, for hosts that load it themselves (bundlers). Default: loaded lazily. */
  canvas?: CanvasModuleShape;
}

/**
 * The PNG captcha renderer. `@napi-rs/canvas` (Skia, prebuilt; no system Cairo or fonts needed)
 * rasterises each glyph once per face and size, at a few rotations, scales and shears (a glyph
 * atlas); every image is then painted in JavaScript from those masks, curves and specks, and
 * PNG-encoded. The module and fonts load on the first `render` call, so a service that never serves
 * a captcha does not need them. `render` is synchronous and deterministic for a given `Random` stream.
 *
 * @example
 * const renderer = createCanvasRenderer();
 * const png = renderer.render('k7eP', 85, 30, seededRandom(1));
 */
export function createCanvasRenderer(options: CanvasRendererOptions = {}): SyncCaptchaRenderer {
  let state: { atlas: GlyphAtlas; families: string[] } | undefined;
  const setup = () => {
    const canvas = options.canvas ?? loadCanvasModule();
    const paths = options.fontPath === undefined ? bundledFontPaths() : [options.fontPath].flat();
    return { atlas: createGlyphAtlas(canvas), families: registerCaptchaFonts(canvas, paths) };
  };
  // One surface per size, reused: render is synchronous, and every image repaints every pixel.
  const surfaces = new Map<string, CaptchaSurface>();
  const surfaceFor = (width: number, height: number) => {
    const key = `${width}x${height}`;
    let surface = surfaces.get(key);
    if (!surface) {
      if (surfaces.size >= MAX_SIZES) surfaces.clear();
      const pixels = width * height;
      surface = { image: createRgbImage(width, height), stroke: { coverage: new Uint8Array(pixels), touched: new Int32Array(pixels) } };
      surfaces.set(key, surface);
    }
    return surface;
  };
  return {
    render(text, width, height, random) {
      state ??= setup();
      const surface = surfaceFor(width, height);
      drawCaptcha(surface, text, drawRandom(random), state.families, state.atlas);
      return encodeRgbPng(surface.image.pixels, width, height);
    },
  };
}
