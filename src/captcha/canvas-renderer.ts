import { type CanvasContextShape, type CanvasModuleShape, loadCanvasModule } from './canvas-module.js';
import { bundledFontPaths, registerCaptchaFonts } from './captcha-fonts.js';
import { drawCaptcha } from './draw-captcha.js';
import { encodeOpaquePng } from './png-encode.js';
import { drawRandom } from './random-draw.js';
import type { SyncCaptchaRenderer } from './renderer.js';

/** Canvas sizes a renderer keeps (captcha sizes are few; the parameters bound them anyway). */
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
 * The PNG captcha renderer on `@napi-rs/canvas` (Skia, prebuilt; no system Cairo or fonts needed).
 * The module and fonts load on the first `render` call, so a service that never serves a captcha does
 * not need them. `render` is synchronous and deterministic for a given `Random` stream.
 *
 * @example
 * const renderer = createCanvasRenderer();
 * const png = renderer.render('k7eP', 85, 30, seededRandom(1));
 */
export function createCanvasRenderer(options: CanvasRendererOptions = {}): SyncCaptchaRenderer {
  let state: { canvas: CanvasModuleShape; families: string[] } | undefined;
  const setup = () => {
    const canvas = options.canvas ?? loadCanvasModule();
    const paths = options.fontPath === undefined ? bundledFontPaths() : [options.fontPath].flat();
    return { canvas, families: registerCaptchaFonts(canvas, paths) };
  };
  // One canvas per size, reused: render is synchronous, and every image repaints every pixel.
  const contexts = new Map<string, CanvasContextShape>();
  const contextFor = (canvas: CanvasModuleShape, width: number, height: number) => {
    const key = `${width}x${height}`;
    let context = contexts.get(key);
    if (!context) {
      if (contexts.size >= MAX_SIZES) contexts.clear();
      context = canvas.createCanvas(width, height).getContext('2d');
      contexts.set(key, context);
    }
    return context;
  };
  return {
    render(text, width, height, random) {
      state ??= setup();
      const g = contextFor(state.canvas, width, height);
      g.setTransform(1, 0, 0, 1, 0, 0);
      drawCaptcha(g, text, width, height, drawRandom(random), state.families);
      return encodeOpaquePng(g.getImageData(0, 0, width, height).data, width, height);
    },
  };
}
