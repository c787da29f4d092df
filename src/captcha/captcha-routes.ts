import type { RouteDef } from '../features/routes.js';
import type { CaptchaEngine } from './captcha-engine.js';
import type { CaptchaService } from './captcha-feature.js';
import { captchaImageRoute, captchaImageUrl } from './captcha-image-route.js';
import { REQUEST_CAPTCHA_SCHEMA, parseCaptchaParams } from './captcha-params.js';

/** The body of `POST /1/verifyCaptcha`, checked by ajv at the edge (missing: 107, not a string: the type error). */
const VERIFY_CAPTCHA_SCHEMA = {
  type: 'object',
  properties: { captcha_code: { type: 'string' }, captcha_token: { type: 'string' } },
  required: ['captcha_code', 'captcha_token'],
} as const;

/**
 * The captcha routes: `POST /1/requestCaptcha` (`{captcha_token, captcha_url}`), `GET /1/captchaImage`
 * (the PNG) and `POST /1/verifyCaptcha` (`{validate_token}`), mapped onto the captcha service.
 */
export function captchaRoutes(service: CaptchaService, engine: CaptchaEngine): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/1/requestCaptcha',
      auth: 'app',
      body: 'optional-json',
      schema: REQUEST_CAPTCHA_SCHEMA,
      async handler(rc) {
        const { token } = await service.request(rc.caller, parseCaptchaParams(rc.body));
        return { body: { captcha_token: token, captcha_url: captchaImageUrl(rc.baseUrl, rc.app, token) } };
      },
    },
    captchaImageRoute(engine),
    {
      method: 'POST',
      path: '/1/verifyCaptcha',
      auth: 'app',
      body: 'json',
      schema: VERIFY_CAPTCHA_SCHEMA,
      async handler(rc) {
        // The schema guarantees both fields are strings.
        const body = rc.body as { captcha_code: string; captcha_token: string };
        return { body: { validate_token: await service.verify(rc.caller, body.captcha_token, body.captcha_code) } };
      },
    },
  ];
}
