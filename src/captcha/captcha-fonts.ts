import { createRequire } from 'node:module';
import { configError } from '../core/errors.js';
import type { CanvasModuleShape } from './canvas-module.js';

/**
 * The bundled faces (from the `dejavu-fonts-ttf` package), mixed per glyph: DejaVu Sans Bold and
 * DejaVu Sans Mono Bold.
 */
const BUNDLED_FONTS = ['dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf', 'dejavu-fonts-ttf/ttf/DejaVuSansMono-Bold.ttf'];

/** Family aliases by font file path, per canvas module: each file is registered once. */
const registry = new WeakMap<CanvasModuleShape, Map<string, string>>();
let families = 0;

/** Absolute paths of the bundled font files; a `[svcbase] [captcha]` error when the package is missing. */
export function bundledFontPaths(): string[] {
  const require = createRequire(import.meta.url);
  try {
    return BUNDLED_FONTS.map((id) => require.resolve(id));
  } catch (cause) {
    const error = configError(
      'captcha',
      'the captcha font package dejavu-fonts-ttf is not installed: run `npm install dejavu-fonts-ttf`, or pass `fontPath`',
    );
    error.cause = cause;
    throw error;
  }
}

/**
 * Registers font files with the canvas module under private family names (`svcbase-captcha-<n>`) so
 * rendering never depends on system fonts nor collides with the host's own families. Returns the
 * family names to draw with.
 */
export function registerCaptchaFonts(canvas: CanvasModuleShape, paths: readonly string[]): string[] {
  if (paths.length === 0) throw configError('captcha', 'fontPath must name at least one font file');
  const known = registry.get(canvas) ?? new Map<string, string>();
  registry.set(canvas, known);
  return paths.map((path) => {
    const alias = known.get(path);
    if (alias) return alias;
    const family = `svcbase-captcha-${families++}`;
    if (!canvas.GlobalFonts.registerFromPath(path, family)) {
      throw configError('captcha', `could not load the font file '${path}' (TrueType or OpenType expected)`);
    }
    known.set(path, family);
    return family;
  });
}
