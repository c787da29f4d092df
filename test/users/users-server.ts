import type { AppSettings, DeepPartial } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import type { CounterStore } from '../../src/counters/port.js';
import { type MemoryMailTransport, memoryMailTransport } from '../../src/mail/index.js';
import { type MemorySmsTransport, memorySmsTransport } from '../../src/sms/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import type { UsersFeature } from '../../src/users/index.js';
import { TEST_APP, type TestResponse, type TestServer, startTestServer } from '../helpers/server.js';

/** Cheap scrypt for tests (the default costs ~300 ms a hash on a small CI machine). */
export const FAST_SCRYPT = { N: 1024, r: 8, p: 1 };

export interface UsersServer extends TestServer {
  mail: MemoryMailTransport;
  smsOut: MemorySmsTransport;
  clock: FakeClock;
  users: UsersFeature;
  /** Sends with the session token header. */
  as<T = any>(token: string | null, method: string, path: string, body?: unknown): Promise<TestResponse<T>>;
  /** Signs up and returns `{ objectId, sessionToken }`. */
  signUp(body: Record<string, unknown>): Promise<{ objectId: string; sessionToken: string }>;
  /** Requests an SMS code for `phone` and returns it (read from the memory SMS transport). */
  smsCode(phone: string): Promise<string>;
  /** A fresh 64-hex token from the newest link mailed to `to`. */
  linkOf(to: string): string;
}

export interface UsersServerOptions {
  settings?: DeepPartial<AppSettings>;
  /** Configure the memory mail transport (default true). */
  mail?: boolean;
  /** Mount the SMS feature (default true). */
  sms?: boolean;
  counters?: CounterStore;
  storage?: StorageAdapter;
  /** `users.linkBaseUrl` (default `LINK_BASE`); null leaves it unset. */
  linkBaseUrl?: string | null;
}

/** The public base URL test servers mail links under (tests fetch only the links' paths). */
export const LINK_BASE = 'https://links.example.test';

/**
 * A real HTTP server with the service's built-in records, SMS and users features, memory mail and
 * SMS transports, cheap scrypt and a fake clock.
 */
export async function startUsersServer(options: UsersServerOptions = {}): Promise<UsersServer> {
  const mail = memoryMailTransport();
  const smsOut = memorySmsTransport();
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const linkBaseUrl = options.linkBaseUrl === undefined ? LINK_BASE : options.linkBaseUrl;
  const settings: DeepPartial<AppSettings> = {
    ...options.settings,
    users: { ...(linkBaseUrl === null ? {} : { linkBaseUrl }), ...options.settings?.users },
    sms: { quota: 'unlimited', limits: { perMinute: 1000, perHour: 1000, perDay: 1000 }, ...options.settings?.sms },
  };
  // The service's own wiring: records, SMS (when given a transport) and users share one registry.
  const server = await startTestServer({
    clock,
    applications: [{ ...TEST_APP, settings }],
    captcha: false,
    ...(options.mail !== false ? { mail } : {}),
    ...(options.sms !== false ? { sms: { transport: smsOut } } : {}),
    users: { scrypt: FAST_SCRYPT },
    ...(options.counters ? { counters: options.counters } : {}),
    ...(options.storage ? { storage: options.storage } : {}),
  });
  const users = server.service.registry.users;
  if (!users) throw new Error('the users feature is not mounted');
  const as = <T>(token: string | null, method: string, path: string, body?: unknown) =>
    server.request<T>(method, path, { body, headers: token ? { 'X-Svc-Session-Token': token } : {} });
  return {
    ...server,
    mail,
    smsOut,
    clock,
    users,
    as,
    async signUp(body) {
      const res = await server.request('POST', '/1/users', { body });
      if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${res.text}`);
      return res.body as { objectId: string; sessionToken: string };
    },
    async smsCode(phone) {
      const res = await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: phone } });
      if (res.status !== 200) throw new Error(`requestSmsCode failed: ${res.status} ${res.text}`);
      const code = smsOut.lastCode(phone);
      if (!code) throw new Error('no code captured');
      return code;
    },
    linkOf(to) {
      const link = mail.lastLink(to);
      if (!link) throw new Error(`no link mailed to ${to}`);
      return link;
    },
  };
}

/** The path and query of an absolute link (fetched against the test server). */
export function pathOf(link: string): string {
  const url = new URL(link);
  return url.pathname + url.search;
}
