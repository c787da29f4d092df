import type { Application } from '../app/application.js';
import { configError, retryError, svcError } from '../core/errors.js';
import { limitedAddress } from '../counters/address-limit.js';
import { createRateLimiter } from '../counters/rate-limiter.js';
import { seededRandom } from '../core/random.js';
import type { Json } from '../core/wire-values.js';
import type { Feature, RouteDef, ServiceContext } from '../http/types.js';
import { type CanvasModuleShape, loadCanvasModule } from './canvas-module.js';
import { createCanvasRenderer } from './canvas-renderer.js';
import { type CaptchaEngine, createCaptchaEngine } from './captcha-engine.js';
import { captchaImageRoute, captchaImageUrl } from './captcha-image-route.js';
import { createCaptchaSecrets } from './captcha-secrets.js';
import { REQUEST_CAPTCHA_SCHEMA, parseCaptchaParams } from './captcha-params.js';
import type { CaptchaRenderer } from './renderer.js';

/** Options of {@link createCaptchaFeature}. */
export interface CaptchaFeatureOptions {
  /** Draws the images. Default: the `@napi-rs/canvas` renderer (the module loads when the feature is created). */
  renderer?: CaptchaRenderer;
  /** Lifetime of a validate_token in milliseconds (default 600 000: 10 minutes). */
  validateTokenTtlMs?: number;
  /** Font file(s) for the default renderer (default: the bundled DejaVu faces); loaded when the feature is created. */
  fontPath?: string | readonly string[];
  /** How the default renderer loads `@napi-rs/canvas` (default: `require`); for tests. */
  loadCanvas?: (id: string) => unknown;
  /**
   * Key of the captcha entries in the KvStore (at least 16 bytes): tokens are stored as HMACs,
   * answers as keyed digests, images sealed. Default: each application's master key (as for SMS
   * codes), which every instance sharing the store already has. Instances sharing a store must use
   * the same secret; rotating it voids pending captchas and unused validate_tokens.
   */
  secret?: string | Uint8Array;
}

/** What other features use: the SMS feature consumes validate_tokens for captcha-gated templates. */
export interface CaptchaApi {
  /**
   * Atomically consumes a validate_token issued to `app`: true exactly once, false when the token is
   * unknown, already used, expired or issued to another application.
   */
  consumeValidateToken(app: Application, token: string): Promise<boolean>;
}

/** Default lifetime of a validate_token: 10 minutes. */
export const DEFAULT_VALIDATE_TOKEN_TTL_MS = 10 * 60 * 1000;

const VERIFY_CAPTCHA_SCHEMA = {
  type: 'object',
  properties: { captcha_code: { type: 'string' }, captcha_token: { type: 'string' } },
  required: ['captcha_code', 'captcha_token'],
} as const;

/**
 * The image captcha: `POST /1/requestCaptcha`, `GET /1/captchaImage`, `POST /1/verifyCaptcha`.
 * Returns the feature to mount and the api the SMS feature calls. Without a `renderer`,
 * `@napi-rs/canvas` is loaded now; if it cannot be, a warning is logged and `requestCaptcha`
 * answers 11007 instead of failing with a 500 on first use.
 *
 * @example
 * const captcha = createCaptchaFeature(ctx);
 * createService({ features: [() => captcha.feature], ... });
 * await captcha.api.consumeValidateToken(app, body.validate_token);
 */
export function createCaptchaFeature(
  ctx: ServiceContext,
  options: CaptchaFeatureOptions = {},
): { feature: Feature; api: CaptchaApi; engine: CaptchaEngine } {
  const validateTokenTtlMs = options.validateTokenTtlMs ?? DEFAULT_VALIDATE_TOKEN_TTL_MS;
  if (!Number.isInteger(validateTokenTtlMs) || validateTokenTtlMs <= 0) {
    throw configError('captcha', `validateTokenTtlMs must be a positive integer of milliseconds, got ${String(validateTokenTtlMs)}`);
  }
  const canvas = options.renderer ? undefined : probeCanvas(ctx, options.loadCanvas);
  const canvasMissing = canvas === null;
  const renderer =
    options.renderer ?? createCanvasRenderer({ ...(options.fontPath === undefined ? {} : { fontPath: options.fontPath }), ...(canvas ? { canvas } : {}) });
  // A host's own font files are checked now: a wrong fontPath fails createService, not the first captcha.
  if (canvas && options.fontPath !== undefined) renderer.render('2345', 60, 30, seededRandom(1));
  const secrets = createCaptchaSecrets(ctx.random, options.secret);
  const engine = createCaptchaEngine({ kv: ctx.kv, clock: ctx.clock, random: ctx.random, renderer, secrets, validateTokenTtlMs });
  const limiter = createRateLimiter({ store: ctx.counters, clock: ctx.clock });
  /**
   * Each captcha renders an image: cap requests per client address (settings.captcha.requestLimits).
   * Without an address the limit is skipped, logged once (`limitedAddress`).
   */
  const limitRequests = async (app: Application, address: string | undefined) => {
    const windows = app.settings.captcha.requestLimits;
    if (windows.length === 0 || !limitedAddress(ctx.logger, address, 'captcha.requestLimits')) return;
    const decision = await limiter.consume(`captcha:${app.applicationId}:${address}`, windows);
    if (!decision.allowed) throw retryError('requestRateLimited', decision.retryAfterMs, 'requestCaptcha');
  };
  const routes: RouteDef[] = [
    {
      method: 'POST',
      path: '/1/requestCaptcha',
      auth: 'app',
      body: 'optional-json',
      schema: REQUEST_CAPTCHA_SCHEMA,
      async handler(rc) {
        if (canvasMissing) throw svcError('featureDisabled', `captcha (${CANVAS_MISSING})`);
        const params = parseCaptchaParams(rc.body);
        await limitRequests(rc.app, rc.remoteAddress);
        const { token } = await engine.issue(rc.app, params);
        return { body: { captcha_token: token, captcha_url: captchaImageUrl(rc.baseUrl, rc.app, token) } };
      },
    },
    captchaImageRoute(engine, ctx.applications),
    {
      method: 'POST',
      path: '/1/verifyCaptcha',
      auth: 'app',
      body: 'json',
      schema: VERIFY_CAPTCHA_SCHEMA,
      async handler(rc) {
        const code = requiredString(rc.body, 'captcha_code');
        const token = requiredString(rc.body, 'captcha_token');
        return { body: { validate_token: await engine.verify(rc.app, token, code) } };
      },
    },
  ];
  return {
    feature: { name: 'captcha', routes },
    api: { consumeValidateToken: (app, token) => engine.consumeValidateToken(app, token) },
    engine,
  };
}

const CANVAS_MISSING = '@napi-rs/canvas could not be loaded: npm install @napi-rs/canvas, or pass a renderer, or captcha: false';

/**
 * Loads `@napi-rs/canvas` for the default renderer when the service starts. When it cannot load, the
 * service still starts: one warning is logged and `requestCaptcha` answers 11007 (null here).
 */
function probeCanvas(ctx: ServiceContext, load: ((id: string) => unknown) | undefined): CanvasModuleShape | null {
  try {
    return load ? loadCanvasModule(load) : loadCanvasModule();
  } catch (error) {
    ctx.logger.warn(`captcha unavailable: ${CANVAS_MISSING}`, { error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

function requiredString(body: { readonly [key: string]: Json } | undefined, name: string): string {
  const value = body?.[name];
  if (value === undefined || value === null) throw svcError('paramRequired', name);
  if (typeof value !== 'string') throw svcError('typeMismatch', name, 'string', Array.isArray(value) ? 'array' : typeof value);
  return value;
}
