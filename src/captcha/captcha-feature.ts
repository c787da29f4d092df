import { type FeatureDefinition, featureKey } from '../features/contract.js';
import type { Application } from '../app/application.js';
import type { Caller } from '../app/caller.js';
import { configError, retryError, svcError } from '../core/errors.js';
import { limitedAddress } from '../counters/address-limit.js';
import { createRateLimiter } from '../counters/rate-limiter.js';
import { seededRandom } from '../core/random.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { CounterStore } from '../counters/port.js';
import type { KvStore } from '../kv/port.js';
import { type CanvasModuleShape, loadCanvasModule } from './canvas-module.js';
import { createCanvasRenderer } from './canvas-renderer.js';
import { type CaptchaEngine, createCaptchaEngine } from './captcha-engine.js';
import { captchaRoutes } from './captcha-routes.js';
import { createCaptchaSecrets } from './captcha-secrets.js';
import type { CaptchaParams } from './captcha-params.js';
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

/** What the captcha feature takes from the service's feature context. */
export interface CaptchaFeatureContext {
  /** Captcha entries (tokens, answers, sealed images). */
  readonly kv: KvStore;
  /** Per-address request limits. */
  readonly counters: CounterStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** Applications by id (the image route names its application by secret key). */
  readonly applications: ReadonlyMap<string, Application>;
}

/**
 * The captcha service: a Caller plus typed input in, a coded error (SvcError) or the result out.
 * `captcha-routes.ts` maps `POST /1/requestCaptcha` and `POST /1/verifyCaptcha` onto it.
 */
export interface CaptchaService {
  /** Issues a captcha (counted against the caller's address): its token, for the image URL. */
  request(caller: Caller, params: CaptchaParams): Promise<{ readonly token: string }>;
  /** Checks an answer: the single-use validate_token on success (coded errors otherwise). */
  verify(caller: Caller, token: string, code: string): Promise<string>;
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
  ctx: CaptchaFeatureContext,
  options: CaptchaFeatureOptions = {},
): { feature: { readonly name: 'captcha'; readonly routes: ReturnType<typeof captchaRoutes> }; api: CaptchaApi; engine: CaptchaEngine; service: CaptchaService } {
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
  const service: CaptchaService = {
    async request(caller, params) {
      if (canvasMissing) throw svcError('featureDisabled', `captcha (${CANVAS_MISSING})`);
      await limitRequests(caller.app, caller.address);
      return engine.issue(caller.app, params);
    },
    verify: (caller, token, code) => engine.verify(caller.app, token, code),
  };
  const routes = captchaRoutes(service, engine);
  return {
    feature: { name: 'captcha', routes },
    api: { consumeValidateToken: (app, token) => engine.consumeValidateToken(app, token) },
    engine,
    service,
  };
}

const CANVAS_MISSING = '@napi-rs/canvas could not be loaded: npm install @napi-rs/canvas, or pass a renderer, or captcha: false';

/**
 * Loads `@napi-rs/canvas` for the default renderer when the service starts. When it cannot load, the
 * service still starts: one warning is logged and `requestCaptcha` answers 11007 (null here).
 */
function probeCanvas(ctx: CaptchaFeatureContext, load: ((id: string) => unknown) | undefined): CanvasModuleShape | null {
  try {
    return load ? loadCanvasModule(load) : loadCanvasModule();
  } catch (error) {
    ctx.logger.warn(`captcha unavailable: ${CANVAS_MISSING}`, { error: error instanceof Error ? error.message : String(error) });
    return null;
  }
}

/** The key of the captcha feature's API: `ctx.find(CAPTCHA)`. */
export const CAPTCHA = featureKey<CaptchaApi>('captcha');

/** The image captcha as a feature definition: `createService` lists it unless `captcha: false`. */
export function captchaFeature(options: CaptchaFeatureOptions = {}): FeatureDefinition<CaptchaApi> {
  return {
    id: CAPTCHA.id,
    init(ctx) {
      const captcha = createCaptchaFeature(ctx, options);
      return { api: captcha.api, routes: captcha.feature.routes };
    },
  };
}
