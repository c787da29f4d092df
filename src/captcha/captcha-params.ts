import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';

/** The image and lifetime parameters of one captcha (requestCaptcha body). */
export interface CaptchaParams {
  /** Image width in pixels (60-200, default 85). */
  readonly width: number;
  /** Image height in pixels (30-100, default 30). */
  readonly height: number;
  /** Number of characters (3-6, default 4). */
  readonly size: number;
  /** Lifetime of the captcha token in seconds (60-180, default 60). */
  readonly ttl: number;
}

/** Range, default and unit of each parameter, as the hosted service documents them. */
export const CAPTCHA_PARAM_LIMITS = {
  width: { min: 60, max: 200, default: 85, unit: 'pixels' },
  height: { min: 30, max: 100, default: 30, unit: 'pixels' },
  size: { min: 3, max: 6, default: 4, unit: 'characters' },
  ttl: { min: 60, max: 180, default: 60, unit: 'seconds' },
} as const satisfies Record<keyof CaptchaParams, { min: number; max: number; default: number; unit: string }>;

const NAMES = Object.keys(CAPTCHA_PARAM_LIMITS) as Array<keyof CaptchaParams>;

/** JSON Schema of the requestCaptcha body (every key optional; unknown keys are ignored). */
export const REQUEST_CAPTCHA_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(
    NAMES.map((name) => [name, { type: 'integer', minimum: CAPTCHA_PARAM_LIMITS[name].min, maximum: CAPTCHA_PARAM_LIMITS[name].max }]),
  ),
} as const;

/**
 * Reads and checks the requestCaptcha body; absent keys take their defaults. A value that is not an
 * integer is 111 (type mismatch), an integer out of range is 11005; both name the parameter.
 *
 * @example parseCaptchaParams({ width: 120 }) // { width: 120, height: 30, size: 4, ttl: 60 }
 */
export function parseCaptchaParams(body: { readonly [key: string]: Json } | undefined): CaptchaParams {
  const out = {} as Record<keyof CaptchaParams, number>;
  for (const name of NAMES) {
    const limits = CAPTCHA_PARAM_LIMITS[name];
    const value = body?.[name];
    if (value === undefined) {
      out[name] = limits.default;
      continue;
    }
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      throw svcError('typeMismatch', name, 'integer', describe(value));
    }
    if (value < limits.min || value > limits.max) {
      throw svcError('invalidParameter', `${name} must be from ${limits.min} to ${limits.max} ${limits.unit}, got ${value}.`);
    }
    out[name] = value;
  }
  return out;
}

function describe(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return 'number';
  return typeof value;
}
