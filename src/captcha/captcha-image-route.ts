import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import { secretsEqual } from '../core/secrets.js';
import type { RouteDef } from '../http/types.js';
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
 * `GET /1/captchaImage?secretKey=…&token=…`: public (the URL is the credential). The secret key is
 * compared timing-safely against every application; an unknown key answers like an unknown token
 * (11010), so the route does not reveal which keys exist.
 */
export function captchaImageRoute(engine: CaptchaEngine, applications: ReadonlyMap<string, Application>): RouteDef {
  return {
    method: 'GET',
    path: '/1/captchaImage',
    auth: 'none',
    body: 'none',
    async handler(ctx) {
      const app = findApplication(applications, ctx.query);
      const token = ctx.query.get('token');
      if (!app || !token) throw svcError('captchaTokenInvalid');
      const png = await engine.image(app, token);
      return { status: 200, body: png, raw: true, headers: { ...CAPTCHA_IMAGE_HEADERS } };
    },
  };
}

function findApplication(applications: ReadonlyMap<string, Application>, query: URLSearchParams): Application | undefined {
  const secretKey = query.get('secretKey');
  if (secretKey !== null) {
    let found: Application | undefined;
    // Every candidate is compared, so the time taken does not reveal which key matched.
    for (const app of applications.values()) {
      if (app.secretKey !== undefined && secretsEqual(app.secretKey, secretKey) && !found) found = app;
    }
    return found;
  }
  const applicationId = query.get('applicationId');
  const app = applicationId === null ? undefined : applications.get(applicationId);
  return app && app.secretKey === undefined ? app : undefined;
}
