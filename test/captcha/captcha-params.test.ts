import { describe, expect, it } from 'vitest';
import { CAPTCHA_PARAM_LIMITS, REQUEST_CAPTCHA_SCHEMA, parseCaptchaParams } from '../../src/captcha/captcha-params.js';
import { isSvcError } from '../../src/core/errors.js';
import type { Json } from '../../src/core/wire-values.js';
import { createBodyValidator } from '../../src/http/validate.js';

type Outcome = { ok: true; value: unknown } | { ok: false; code: number; message: string };

function parse(body: { [key: string]: Json } | undefined): Outcome {
  try {
    return { ok: true, value: parseCaptchaParams(body) };
  } catch (error) {
    if (!isSvcError(error)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

/** The router validates bodies with this schema before the handler runs: both must agree. */
const schemaCheck = createBodyValidator()(REQUEST_CAPTCHA_SCHEMA);
function schema(body: { [key: string]: Json }): Outcome {
  try {
    schemaCheck(body);
    return { ok: true, value: body };
  } catch (error) {
    if (!isSvcError(error)) throw error;
    return { ok: false, code: error.code, message: error.message };
  }
}

const NAMES = ['width', 'height', 'size', 'ttl'] as const;

describe('requestCaptcha parameters', () => {
  it('defaults to 85x30 pixels, 4 characters, 60 seconds (absent body, empty body)', () => {
    const defaults = { width: 85, height: 30, size: 4, ttl: 60 };
    expect(parseCaptchaParams(undefined)).toEqual(defaults);
    expect(parseCaptchaParams({})).toEqual(defaults);
  });

  it('keeps the documented ranges', () => {
    expect(CAPTCHA_PARAM_LIMITS).toMatchObject({
      width: { min: 60, max: 200 },
      height: { min: 30, max: 100 },
      size: { min: 3, max: 6 },
      ttl: { min: 60, max: 180 },
    });
  });

  it('ignores unknown keys', () => {
    expect(parseCaptchaParams({ width: 100, colour: 'red' })).toEqual({ width: 100, height: 30, size: 4, ttl: 60 });
  });

  for (const name of NAMES) {
    const { min, max } = CAPTCHA_PARAM_LIMITS[name];

    it(`${name}: accepts ${min} and ${max}, refuses ${min - 1} and ${max + 1} with 11005 naming it`, () => {
      for (const ok of [min, max, Math.round((min + max) / 2)]) {
        expect(parse({ [name]: ok })).toMatchObject({ ok: true, value: { [name]: ok } });
        expect(schema({ [name]: ok }).ok).toBe(true);
      }
      for (const bad of [min - 1, max + 1, 0, -min, 1e9]) {
        const outcome = parse({ [name]: bad });
        expect(outcome).toMatchObject({ ok: false, code: 11005 });
        expect(outcome.ok || outcome.message).toContain(name);
        expect(outcome.ok || outcome.message).toContain(`from ${min} to ${max}`);
        const viaSchema = schema({ [name]: bad });
        expect(viaSchema).toMatchObject({ ok: false, code: 11005 });
        expect(viaSchema.ok || viaSchema.message).toContain(name);
      }
    });

    it(`${name}: refuses non-integers (strings, fractions, booleans, null, arrays, objects) with 111 naming it`, () => {
      const bads: Json[] = [String(min), `${min}px`, '', min + 0.5, true, null, [min], { value: min }];
      for (const bad of bads) {
        const outcome = parse({ [name]: bad });
        expect(outcome, JSON.stringify(bad)).toMatchObject({ ok: false, code: 111 });
        expect(outcome.ok || outcome.message).toContain(`'${name}'`);
        const viaSchema = schema({ [name]: bad });
        expect(viaSchema, JSON.stringify(bad)).toMatchObject({ ok: false, code: 111 });
        expect(viaSchema.ok || viaSchema.message).toContain(name);
      }
    });
  }

  it('accepts an integer written with a fraction part (85.0 is the JSON number 85)', () => {
    expect(parseCaptchaParams(JSON.parse('{"width":85.0}') as { [key: string]: Json }).width).toBe(85);
  });
});
