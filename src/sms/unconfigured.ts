import { svcError } from '../core/errors.js';
import type { SmsApi } from './sms-api.js';
import { disabledRoutes, smsRoutes } from './routes.js';

const refuse = (): never => {
  throw svcError('featureDisabled', 'sms (no SMS transport configured)');
};

/** Stands in for the SMS API only to list the routes; never called. */
const NO_SMS: SmsApi = {
  requestCode: refuse,
  sendNotification: refuse,
  verifyCode: refuse,
  redeemCode: refuse,
  status: refuse,
  recordDelivery: refuse,
  quota: refuse,
};

/**
 * The SMS routes of a service started without `sms`: each answers 11007 ("no SMS transport
 * configured") whatever the body, so missing setup is loud instead of a 404 "no route".
 */
export function unconfiguredSmsFeature(): { readonly name: 'sms'; readonly routes: ReturnType<typeof smsRoutes> } {
  return { name: 'sms', routes: disabledRoutes(smsRoutes(NO_SMS), refuse) };
}
