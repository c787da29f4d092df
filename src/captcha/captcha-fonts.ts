import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { configError } from '../core/errors.js';
import type { CanvasModuleShape } from './canvas-module.js';

/**
 * The bundled faces, mixed per glyph: DejaVu Sans Bold and DejaVu Sans Mono Bold, cut down to the
 * captcha alphabet's glyphs by `scripts/subset-captcha-fonts.mjs` (licence: assets/fonts/LICENSE-DejaVu.txt).
 */
const BUNDLED_FONTS = ['assets/fonts/DejaVuSans-Bold.ttf', 'assets/fonts/DejaVuSansMono-Bold.ttf'];

/** Family aliases by font file path, per canvas module: each file is registered once. */
const registry = new WeakMap<CanvasModuleShape, Map<string, string>>();
let families = 0;

/**
 * Absolute paths of the bundled font files. Resolved through the package's own name, so the same
 * lookup works from src/ (tests), from dist/ and from an installed copy.
 */
export function bundledFontPaths(): string[] {
  try {
    const root = dirname(createRequire(import.meta.url).resolve('svcbase/package.json'));
    return BUNDLED_FONTS.map((file) => join(root, file));
  } catch (cause) {
    // A host that bundles svcbase into one file leaves the package folder behind.
    const error = configError('captcha', 'the bundled captcha fonts are not found (is svcbase bundled into another file?): pass `fontPath`');
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
