import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { RouteDef } from '../features/routes.js';
import type { CaptchaEngine } from './captcha-engine.js';

/** Response headers of the image: never cached, never sniffed. */
export const CAPTCHA_IMAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'image/png',
  'cache-control': 'no-store, no-cache, must-revalidate',
  pragma: 'no-cache',
  'x-content-type-options': 'nosniff',
};

/**
 * The address of a captcha image, as the hosted service shapes it:
 * `{baseUrl}/1/captchaImage?secretKey=<app secret key>&token=<captcha_token>`. An application without a
 * secret key is named by `applicationId=` instead.
 */
export function captchaImageUrl(baseUrl: string, app: Application, token: string): string {
  const who = app.secretKey !== undefined
    ? `secretKey=${encodeURIComponent(app.secretKey)}`
    : `applicationId=${encodeURIComponent(app.applicationId)}`;
  return `${baseUrl.replace(/\/+$/, '')}/1/captchaImage?${who}&token=${encodeURIComponent(token)}`;
}

/**
 * `GET /1/captchaImage?secretKey=…&token=…`: the link is the credential (`auth: 'captcha-link'`):
 * http/ finds the application by the secret key (timing-safe, against every application), or by
 * `applicationId` for one without a secret key; an unknown key answers like an unknown token (11010),
 * so the route does not reveal which keys exist.
 */
export function captchaImageRoute(engine: CaptchaEngine): RouteDef {
  return {
    method: 'GET',
    path: '/1/captchaImage',
    auth: 'captcha-link',
    body: 'none',
    async handler(ctx) {
      const token = ctx.query.get('token');
      if (!token) throw svcError('captchaTokenInvalid');
      const png = await engine.image(ctx.caller.app, token);
      return { status: 200, body: png, raw: true, headers: { ...CAPTCHA_IMAGE_HEADERS } };
    },
  };
}
