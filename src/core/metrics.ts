/**
 * The metrics port: what the request handler and the features report (docs/console.md, "Metrics").
 * Each call is a counter increment in the implementation (src/metrics/), and `noMetrics` does nothing,
 * so a service without the console and without `/metrics` pays nothing but the call. Labels are
 * bounded by configuration: application ids, route groups, deployed function names, SMS template
 * names, table names; never a value a client makes up.
 */
export interface MetricsPort {
  /** False for {@link noMetrics}: callers skip their clock reads then. */
  readonly enabled: boolean;
  /**
   * One answered request: its application (`''` when none authenticated), route group
   * ({@link routeGroup}), status, time in ms, and method and path as the access log writes them.
   */
  request(app: string, group: string, status: number, ms: number, method: string, path: string): void;
  /** One cloud function invocation that ended: failed (a coded error, a timeout) or not, and its time in ms. */
  functionCall(app: string, name: string, failed: boolean, ms: number): void;
  /** One SMS handed to the transport (`sent`) or refused by it (`!sent`), by template. */
  sms(app: string, template: string, sent: boolean): void;
  /** One realtime event delivered to a subscription. */
  realtimeEvent(app: string): void;
  /**
   * Adds gauges read when the metrics are: `sampled` ones at every sample of the in-process ring
   * (they must be cheap and synchronous in effect), the others only when `/metrics` or the console
   * asks (storage sizes, SMS quotas). Returns the removal function.
   */
  gauges(source: GaugeSource): () => void;
}

/** One gauge's value for one label set (`app` is always a label). */
export interface GaugeValue {
  readonly app: string;
  /** More labels, e.g. `{ table: 'Post' }`. */
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface GaugeSource {
  /** Prometheus name, e.g. `svcbase_realtime_connections`. */
  readonly name: string;
  readonly help: string;
  /** Read at every ring sample (cheap, in memory) instead of only on request. */
  readonly sampled?: boolean;
  read(): readonly GaugeValue[] | Promise<readonly GaugeValue[]>;
}

/** Reports nothing: the port of a service whose metrics nobody reads. */
export const noMetrics: MetricsPort = {
  enabled: false,
  request() {},
  functionCall() {},
  sms() {},
  realtimeEvent() {},
  gauges: () => () => {},
};

/** First path segments (after a version segment) and the group their routes count under. */
const GROUPS: Readonly<Record<string, string>> = {
  classes: 'data',
  batch: 'data',
  import: 'data',
  cloudQuery: 'data',
  schemas: 'schema',
  roles: 'roles',
  users: 'users',
  usersv1: 'users',
  login: 'users',
  logout: 'users',
  checkSession: 'users',
  updatePassword: 'users',
  updateUserPassword: 'users',
  requestPasswordReset: 'users',
  resetPasswordBySmsCode: 'users',
  requestEmailVerify: 'users',
  verifyEmail: 'users',
  resetPassword: 'users',
  files: 'files',
  cdnBatchDelete: 'files',
  cdnVedioSnapshot: 'files',
  functions: 'functions',
  cloudCode: 'functions',
  ':secretKey': 'functions',
  requestSmsCode: 'sms',
  verifySmsCode: 'sms',
  requestSms: 'sms',
  querySms: 'sms',
  smsQuota: 'sms',
  requestCaptcha: 'captcha',
  captchaImage: 'captcha',
  verifyCaptcha: 'captcha',
  realtime: 'realtime',
  'socket.io': 'realtime',
  installations: 'push',
  push: 'push',
  wechatApp: 'wechat',
  wechatAppv1: 'wechat',
  pay: 'wechat',
  wxvp: 'wechat',
  '': 'wechat',
  ai: 'ai',
  console: 'system',
  metrics: 'system',
  logs: 'system',
  appSettings: 'system',
  health: 'system',
  ready: 'system',
  timestamp: 'system',
  'openapi.json': 'system',
};

/**
 * The group a route's requests count under, from its path template (`/1/classes/:table` → `data`):
 * a handful of names a dashboard can show side by side. A host feature's own routes are `other`;
 * a request no route matched is `unmatched`.
 */
export function routeGroup(template: string | undefined): string {
  if (template === undefined) return 'unmatched';
  const segments = template.split('/').filter(Boolean);
  const first = /^\d+$/.test(segments[0] ?? '') ? segments[1] : segments[0];
  return Object.hasOwn(GROUPS, first ?? '') ? GROUPS[first ?? '']! : 'other';
}
