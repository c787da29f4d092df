import { createRequire } from 'node:module';
import { configError } from '../core/errors.js';

/**
 * The few members of a 2D context the captcha renderer uses, described by shape so svcbase does not
 * import `@napi-rs/canvas` types (it is an optional peer dependency).
 */
export interface CanvasContextShape {
  fillStyle: unknown;
  strokeStyle: unknown;
  lineWidth: number;
  lineCap: unknown;
  globalAlpha: number;
  font: string;
  textAlign: unknown;
  textBaseline: unknown;
  fillRect(x: number, y: number, w: number, h: number): void;
  beginPath(): void;
  moveTo(x: number, y: number): void;
  bezierCurveTo(c1x: number, c1y: number, c2x: number, c2y: number, x: number, y: number): void;
  stroke(): void;
  save(): void;
  restore(): void;
  translate(x: number, y: number): void;
  rotate(angle: number): void;
  transform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  fillText(text: string, x: number, y: number): void;
  rect(x: number, y: number, w: number, h: number): void;
  fill(): void;
  setTransform(a: number, b: number, c: number, d: number, e: number, f: number): void;
  getImageData(x: number, y: number, w: number, h: number): { readonly data: Uint8ClampedArray };
}

/** A canvas as the renderer uses it. */
export interface CanvasShape {
  getContext(type: '2d'): CanvasContextShape;
  encodeSync(format: 'png'): Uint8Array;
}

/** The members of the `@napi-rs/canvas` module the renderer uses. */
export interface CanvasModuleShape {
  createCanvas(width: number, height: number): CanvasShape;
  GlobalFonts: { registerFromPath(path: string, nameAlias?: string): unknown };
}

let cached: CanvasModuleShape | undefined;

/**
 * Loads `@napi-rs/canvas` on first use (synchronously, so rendering stays synchronous) and caches it.
 * `load` is for tests. Throws a `[svcbase] [captcha]` error that says how to fix a missing install.
 */
export function loadCanvasModule(load: (id: string) => unknown = defaultLoad): CanvasModuleShape {
  if (cached && load === defaultLoad) return cached;
  let mod: unknown;
  try {
    mod = load('@napi-rs/canvas');
  } catch (cause) {
    const error = configError(
      'captcha',
      'the image captcha needs the optional peer dependency @napi-rs/canvas: run `npm install @napi-rs/canvas`, ' +
        'or pass your own `renderer` to createCaptchaFeature',
    );
    error.cause = cause;
    throw error;
  }
  if (!isCanvasModule(mod)) throw configError('captcha', '@napi-rs/canvas loaded but does not export createCanvas and GlobalFonts');
  if (load === defaultLoad) cached = mod;
  return mod;
}

function defaultLoad(id: string): unknown {
  return createRequire(import.meta.url)(id);
}

function isCanvasModule(value: unknown): value is CanvasModuleShape {
  if (typeof value !== 'object' || value === null) return false;
  const mod = value as Partial<CanvasModuleShape>;
  return typeof mod.createCanvas === 'function' && typeof mod.GlobalFonts?.registerFromPath === 'function';
}
