export { CAPTCHA_SYMBOLS, generateCaptchaText, normalizeCaptchaAnswer } from './alphabet.js';
export { type CanvasModuleShape, loadCanvasModule } from './canvas-module.js';
export { type CanvasRendererOptions, createCanvasRenderer } from './canvas-renderer.js';
export { type CaptchaEngine, type CaptchaEngineDeps, type IssuedCaptcha, createCaptchaEngine } from './captcha-engine.js';
export {
  type CaptchaApi,
  type CaptchaFeatureOptions,
  type CaptchaService,
  DEFAULT_VALIDATE_TOKEN_TTL_MS,
  CAPTCHA,
  captchaFeature,
  createCaptchaFeature,
} from './captcha-feature.js';
export { type CaptchaSecrets, MIN_CAPTCHA_SECRET_BYTES, createCaptchaSecrets } from './captcha-secrets.js';
export { CAPTCHA_IMAGE_HEADERS, captchaImageUrl } from './captcha-image-route.js';
export { CAPTCHA_PARAM_LIMITS, type CaptchaParams, parseCaptchaParams } from './captcha-params.js';
export { CAPTCHA_TOKEN_LENGTH, VALIDATE_TOKEN_LENGTH } from './captcha-tokens.js';
export type { CaptchaRenderer, SyncCaptchaRenderer } from './renderer.js';
