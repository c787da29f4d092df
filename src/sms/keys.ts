/**
 * Every KvStore key of the SMS feature, in one place. Application ids may contain `:`, so they are
 * URI-encoded. Layout (values in brackets):
 *
 * - `sms:seq` [last smsId] — the service-wide smsId sequence, never expires;
 * - `sms:used:<app>` [billed messages so far] — the quota counter, never expires;
 * - `sms:idx:<app>:<digest>` [smsId] — one live code per digest and application (redeemCode's index);
 * - `sms:live:<app>:<smsId>` [phone] — the single-use token of a code, taken on success;
 * - `sms:cur:<app>:<phone>` [{smsId,digest,expiresAt}] — the phone's current code;
 * - `sms:att:<app>:<smsId>` [attempts] — verification attempts of a code;
 * - `sms:state:<app>:<smsId>` [SENDING|SUCCESS|FAIL], `sms:verified:<app>:<smsId>` [1] — the status;
 * - `sms:provider:<transport>:<providerId>` [<app>\n<smsId>] — maps delivery reports back.
 */
export const smsKeys = {
  sequence: () => 'sms:seq',
  used: (appId: string) => `sms:used:${enc(appId)}`,
  index: (appId: string, digest: string) => `sms:idx:${enc(appId)}:${digest}`,
  live: (appId: string, smsId: number) => `sms:live:${enc(appId)}:${smsId}`,
  current: (appId: string, phone: string) => `sms:cur:${enc(appId)}:${enc(phone)}`,
  attempts: (appId: string, smsId: number) => `sms:att:${enc(appId)}:${smsId}`,
  state: (appId: string, smsId: number) => `sms:state:${enc(appId)}:${smsId}`,
  verified: (appId: string, smsId: number) => `sms:verified:${enc(appId)}:${smsId}`,
  provider: (transport: string, providerId: string) => `sms:provider:${enc(transport)}:${enc(providerId)}`,
  /** The rate-limit key (CounterStore) of one number of one application. */
  rate: (appId: string, phone: string) => `sms:rate:${enc(appId)}:${enc(phone)}`,
} as const;

function enc(part: string): string {
  return encodeURIComponent(part);
}
