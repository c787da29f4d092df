import type { ApplicationConfig } from '../../src/app/application.js';

/** The application both instances serve: signed mode on, SMS quota unlimited, a captcha-guarded template, mailed links. */
export const SCALE_APP: ApplicationConfig = {
  applicationId: 'scale-app',
  restApiKey: 'scale-rest',
  masterKey: 'scale-master',
  secretKey: 'scale-secret-key',
  securityCode: 'scale-safe-code',
  settings: {
    features: { realtime: true },
    sms: {
      quota: 'unlimited',
      templates: [{ name: 'guarded', kind: 'code', text: 'Code ${code}', approved: true, captchaRequired: true }],
    },
    users: { linkBaseUrl: 'https://links.scale.test', signUpLimits: [{ limit: 100_000, windowMs: 60_000 }] },
    captcha: { requestLimits: [{ limit: 1000, windowMs: 60_000 }] },
  } as never,
};
