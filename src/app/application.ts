import { configError } from '../core/errors.js';
import { assertTimeZone } from '../core/time.js';
import { deepFreeze } from '../core/freeze.js';
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from '../query/query-limits.js';

export type { QueryLimits } from '../query/query-limits.js';

/** Feature switches: the hosted service's paid-plan features. */
export interface FeatureSwitches {
  /** `$regex` in where queries. */
  regex: boolean;
  /** Email verification of users (emailVerified state machine). */
  emailVerification: boolean;
  /** Realtime table subscriptions. */
  realtime: boolean;
}

/**
 * SMS per-number send limits, per application: sliding windows of 1 minute, 1 hour and 24 hours
 * (positive integers; see docs/sms.md). Shared by requestSmsCode and requestSms.
 */
export interface SmsLimits {
  perMinute: number;
  perHour: number;
  perDay: number;
}

/**
 * An SMS template of an application. `text` holds `${variable}` placeholders (names: a letter or `_`,
 * then letters, digits, `_`). Code templates must contain `${code}` and may contain `${minutes}` (the
 * validity); notification templates may contain any variables, filled from requestSms `content`.
 * A template named `default` of kind `code` replaces the built-in default code template.
 */
export interface SmsTemplate {
  name: string;
  text: string;
  /** `code` templates send verification codes (`${code}`), `notification` templates send `requestSms`. */
  kind: 'code' | 'notification';
  /** Unapproved templates are refused with 11040. */
  approved: boolean;
  /** Sending with this template needs a validate_token from the image captcha (11012 without). */
  captchaRequired?: boolean;
  /** Validity of codes sent with this template, in minutes (code templates; default 5). */
  validityMinutes?: number;
}

export interface SmsSettings {
  limits: SmsLimits;
  /**
   * Messages (billing units) the application may send in total; `'unlimited'` for development.
   * Default 10. The used count lives in the KvStore (`sms:used:<applicationId>`); raising this
   * setting tops the application up.
   */
  quota: number | 'unlimited';
  /** The signature, counted in the billed length ([...signature].length code points; 6 by default). */
  signature: string;
  templates: SmsTemplate[];
  /** Wrong verification attempts after which a code dies (5). */
  maxCodeAttempts: number;
}

/** One login-throttling window: at most `limit` attempts in any `windowMs` milliseconds (sliding). */
export interface LoginThrottleWindow {
  limit: number;
  windowMs: number;
}

/**
 * Mail texts of the user table. `${link}`, `${username}`, `${email}` and `${appName}` are replaced;
 * the HTML part is built from the text (escaped, links made clickable).
 */
export interface UserMailTemplates {
  verifySubject: string;
  verifyText: string;
  resetSubject: string;
  resetText: string;
}

/** User-table settings (sessions, sign-up rules, links, login throttling); see docs/users.md. */
export interface UserSettings {
  /** Lifetime of a session token in ms, counted from login (default 7 days, as the hosted service). */
  sessionTtlMs: number;
  /**
   * When sign-up needs an email (204 without): `always` (the seed's rule), `never`, or
   * `when-verifying` (default: only while the `emailVerification` feature is on).
   */
  requireEmail: 'always' | 'never' | 'when-verifying';
  /** Shortest accepted password, in characters (default 1). */
  minPasswordLength: number;
  /**
   * Whether requestPasswordReset/requestEmailVerify answer 205 for an unknown email, as the hosted
   * service does (default true). false answers `{msg:"ok"}` and mails nothing (no enumeration).
   */
  revealUnknownEmail: boolean;
  /** Validity of an email-verification link in ms (default one week, as the seed says). */
  verifyLinkTtlMs: number;
  /** Validity of a password-reset link in ms (default 1 hour). */
  resetLinkTtlMs: number;
  /**
   * Public base of mailed links (`https://api.example.com`), an absolute http(s) URL, when it differs
   * from the application's `publicUrl` (the default). Links never take their host from the request.
   * Neither set: password-reset and verification requests answer 11101, and an application with
   * `features.emailVerification` on refuses to start.
   */
  linkBaseUrl?: string;
  /** Sender of user mails (default: the transport's own default). */
  mailFrom?: string;
  /** Name shown in mails and link pages (default: the applicationId). */
  appName?: string;
  mailTemplates: UserMailTemplates;
  /**
   * Sign-ups per client address (svcbase addition; each one costs a password hash): sliding windows
   * over `POST /1/users` and `POST /1/classes/_User`. Over the limit: 10076 with Retry-After. Empty:
   * no limit. Master-key callers and requests whose host supplies no client address are not counted.
   */
  signUpLimits: LoginThrottleWindow[];
  /** Login throttling (svcbase addition): 11050 with Retry-After when a window is full. */
  loginThrottle: {
    enabled: boolean;
    /** Attempts per account (per matched user, or per identifier when none matches). */
    account: LoginThrottleWindow[];
    /** Attempts per client address (every login flow). */
    address: LoginThrottleWindow[];
  };
}

/**
 * Schema limits (svcbase addition): every write that would create a class or add a field beyond
 * them is refused (11082, 11083) and writes nothing. Classes whose names start with `_` (`_User`)
 * are the service's own and do not count.
 */
export interface SchemaSettings {
  /** Most classes (tables) of the application (default 500). */
  maxTables: number;
  /** Most fields of one class, not counting objectId/createdAt/updatedAt (default 500, at most 900). */
  maxColumns: number;
  /**
   * The schema lock (Parse Server's `allowClientClassCreation: false`, extended to fields): when
   * true, only the master key creates tables or adds columns; a client write that would answers 11180
   * and writes nothing. Default false (the hosted service creates them on first write).
   */
  locked: boolean;
}

/** Highest accepted `maxColumns`: a GeoPoint takes two SQLite columns and SQLite stops at 2000. */
export const MAX_COLUMNS_CEILING = 900;

export interface AppSettings {
  /** IANA time zone of `createdAt`/`updatedAt` output and zone-less date inputs (default `UTC`). */
  timeZone: string;
  features: FeatureSwitches;
  query: QueryLimits;
  sms: SmsSettings;
  users: UserSettings;
  captcha: CaptchaSettings;
  schema: SchemaSettings;
}

/** Image captcha settings. */
export interface CaptchaSettings {
  /**
   * Sliding windows on `requestCaptcha` per client address (each call renders an image, so an open
   * endpoint is a cheap way to burn CPU). Empty: no limit. Over the limit: 10076 with Retry-After.
   */
  requestLimits: LoginThrottleWindow[];
}

/** How a host declares an application. Only the keys are required. */
export interface ApplicationConfig {
  applicationId: string;
  restApiKey: string;
  masterKey: string;
  /** Identifies the app in signed requests and plain-HTTP function paths (16 hex chars on the hosted service). */
  secretKey?: string;
  /** The "API safe code" mixed into request signatures; never sent on the wire. */
  securityCode?: string;
  /**
   * The public base URL clients reach this application's service at, mount prefix included
   * (`https://api.example.com/api`): the base of every absolute URL the service hands out (uploaded
   * files' urls, captcha image links, `Location` headers, mailed links). Never taken from a request
   * header. Default: the service's `publicUrl`; without either, the address the server listens on
   * (node, Fastify) or urls relative to the origin (fetch runtimes), and mailed links answer 11101.
   */
  publicUrl?: string;
  /**
   * Storage namespace: letters and digits in runs joined by single `_` (no `__`, no leading or trailing
   * `_`, so the first `__` of a physical table name always ends the namespace). Defaults to the
   * applicationId with every other run of characters turned into one `_`.
   */
  namespace?: string;
  /**
   * Settings slices of features that declare their own (`FeatureDefinition.settings`), by feature id:
   * each is handed to its feature's `resolve` (merged over its defaults and checked there).
   */
  featureSettings?: { readonly [featureId: string]: unknown };
  settings?: DeepPartial<AppSettings>;
}

export type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends Array<infer U> ? Array<U> : T[K] extends object ? DeepPartial<T[K]> : T[K];
};

/** A resolved application: config with every setting filled in. */
export interface Application {
  readonly applicationId: string;
  readonly restApiKey: string;
  readonly masterKey: string;
  readonly secretKey: string | undefined;
  readonly securityCode: string | undefined;
  /** The public base URL (no trailing slash), the service's when the application names none; undefined: neither does. */
  readonly publicUrl: string | undefined;
  readonly namespace: string;
  readonly settings: Readonly<AppSettings>;
}

/** The default code template: a 5-minute code, 58 characters filled (one message with a 6-character signature). */
export const DEFAULT_CODE_TEMPLATE: SmsTemplate = {
  name: 'default',
  text: 'Your code is ${code}, valid for 5 minutes. Do not share it.',
  kind: 'code',
  approved: true,
  validityMinutes: 5,
};

export const DEFAULT_SETTINGS: AppSettings = {
  timeZone: 'UTC',
  features: { regex: false, emailVerification: false, realtime: false },
  query: { ...DEFAULT_QUERY_LIMITS },
  sms: {
    limits: { perMinute: 1, perHour: 5, perDay: 10 },
    quota: 10,
    signature: '【svcb】',
    templates: [],
    maxCodeAttempts: 5,
  },
  users: {
    sessionTtlMs: 7 * 24 * 60 * 60 * 1000,
    requireEmail: 'when-verifying',
    minPasswordLength: 1,
    revealUnknownEmail: true,
    verifyLinkTtlMs: 7 * 24 * 60 * 60 * 1000,
    resetLinkTtlMs: 60 * 60 * 1000,
    mailTemplates: {
      verifySubject: 'Verify your email for ${appName}',
      verifyText:
        'Hello ${username},\n\nPlease confirm that ${email} is your email address by opening this link:\n\n${link}\n\n' +
        'The link is valid for one week. If you did not sign up for ${appName}, ignore this mail.',
      resetSubject: 'Reset your ${appName} password',
      resetText:
        'Hello ${username},\n\nSomeone asked to reset the password of your ${appName} account. To choose a new password, open:\n\n' +
        '${link}\n\nThe link works once and expires soon. If it was not you, ignore this mail: your password stays unchanged.',
    },
    signUpLimits: [
      { limit: 20, windowMs: 60 * 1000 },
      { limit: 500, windowMs: 24 * 60 * 60 * 1000 },
    ],
    loginThrottle: {
      enabled: true,
      account: [
        { limit: 10, windowMs: 15 * 60 * 1000 },
        { limit: 100, windowMs: 24 * 60 * 60 * 1000 },
      ],
      address: [
        { limit: 60, windowMs: 60 * 1000 },
        { limit: 1000, windowMs: 24 * 60 * 60 * 1000 },
      ],
    },
  },
  captcha: {
    requestLimits: [
      { limit: 30, windowMs: 60 * 1000 },
      { limit: 600, windowMs: 60 * 60 * 1000 },
    ],
  },
  schema: { maxTables: 500, maxColumns: 500, locked: false },
};

const NAMESPACE = /^(?=.{1,40}$)[A-Za-z0-9]+(?:_[A-Za-z0-9]+)*$/;

/** Fills defaults and checks a config; throws a `[svcbase]` error on a mistake. */
export function resolveApplication(config: ApplicationConfig): Application {
  for (const key of ['applicationId', 'restApiKey', 'masterKey'] as const) {
    if (typeof config[key] !== 'string' || config[key].length === 0) {
      throw configError('app', `application needs a non-empty ${key}`);
    }
  }
  const namespace =
    config.namespace ??
    config.applicationId
      .replace(/[^A-Za-z0-9]+/g, '_')
      .slice(0, 40)
      .replace(/^_+|_+$/g, '');
  if (!NAMESPACE.test(namespace)) throw configError('app', `invalid namespace '${namespace}'`);
  const settings = mergeDeep(DEFAULT_SETTINGS, config.settings ?? {}) as AppSettings;
  assertTimeZone(settings.timeZone);
  assertSchemaSettings(settings.schema);
  return Object.freeze({
    applicationId: config.applicationId,
    restApiKey: config.restApiKey,
    masterKey: config.masterKey,
    secretKey: config.secretKey,
    securityCode: config.securityCode,
    publicUrl: config.publicUrl === undefined ? undefined : checkedPublicUrl(config.publicUrl, `application '${config.applicationId}': publicUrl`),
    namespace,
    settings: deepFreeze(settings),
  });
}

/**
 * A public base URL as configured: an absolute http(s) URL without query or fragment, returned
 * without trailing slashes. Throws a `[svcbase]` error naming `what` otherwise.
 */
export function checkedPublicUrl(url: string, what: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    /* reported below */
  }
  if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.search !== '' || parsed.hash !== '' || url.includes('?') || url.includes('#')) {
    throw configError('app', `${what} must be an absolute http(s) URL without query, got '${url}'`);
  }
  return url.replace(/\/+$/, '');
}

function assertSchemaSettings(schema: SchemaSettings): void {
  const { maxTables, maxColumns } = schema;
  if (typeof schema.locked !== 'boolean') throw configError('app', 'settings.schema.locked must be a boolean');
  if (!Number.isSafeInteger(maxTables) || maxTables < 1) throw configError('app', `settings.schema.maxTables must be a positive integer`);
  if (!Number.isSafeInteger(maxColumns) || maxColumns < 1 || maxColumns > MAX_COLUMNS_CEILING) {
    throw configError('app', `settings.schema.maxColumns must be an integer from 1 to ${MAX_COLUMNS_CEILING}`);
  }
}

function mergeDeep(base: unknown, patch: unknown): unknown {
  if (patch === undefined) return structuredClone(base);
  if (Array.isArray(patch) || typeof patch !== 'object' || patch === null) return structuredClone(patch);
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return structuredClone(patch);
  const out: Record<string, unknown> = { ...(structuredClone(base) as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) out[k] = mergeDeep((base as Record<string, unknown>)[k], v);
  return out;
}

