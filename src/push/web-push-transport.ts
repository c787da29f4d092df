import { createRequire } from 'node:module';
import { configError } from '../core/errors.js';
import { type PushOutcome, type PushTarget, type PushTransport, readErrorText } from './push-transport.js';

export interface WebPushOptions {
  /** The VAPID key pair (`npx web-push generate-vapid-keys`) and a contact (`mailto:` or `https:`). */
  readonly vapid: { readonly subject: string; readonly publicKey: string; readonly privateKey: string };
  /** Seconds the push service keeps an undelivered message (default 86 400). */
  readonly ttlSeconds?: number;
  /** Per request, in ms (default 10 000). */
  readonly timeoutMs?: number;
  /**
   * Hosts (or parent domains) a subscription's endpoint may name, over https. Endpoints come from
   * clients, so anything else is refused (the installation is dropped) rather than letting a client
   * point the server at an internal address. Default: the browsers' push services
   * (`DEFAULT_PUSH_SERVICE_HOSTS`). Hosts given here may also use http (a local push service).
   */
  readonly endpointHosts?: readonly string[];
  readonly fetch?: typeof fetch;
}

/** The push services of Chrome, Firefox, Edge and Safari. */
export const DEFAULT_PUSH_SERVICE_HOSTS: readonly string[] = ['fcm.googleapis.com', 'android.googleapis.com', 'push.services.mozilla.com', 'notify.windows.com', 'push.apple.com'];

/** Why an endpoint may not be called, or null when it may. */
function endpointRefusal(endpoint: string, hosts: readonly string[], custom: boolean): string | null {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'the endpoint is not a URL';
  }
  const host = url.hostname.toLowerCase();
  const listed = hosts.some((allowed) => host === allowed || host.endsWith(`.${allowed}`));
  if (!listed) return `endpoint host ${host.slice(0, 64)} is not a known push service`;
  if (url.protocol !== 'https:' && !(custom && url.protocol === 'http:')) return 'the endpoint must use https';
  return null;
}

interface WebPushModule {
  generateRequestDetails(
    subscription: { endpoint: string; keys: { p256dh: string; auth: string } },
    payload: string,
    options: { vapidDetails: { subject: string; publicKey: string; privateKey: string }; TTL: number; contentEncoding: string },
  ): { method: string; headers: Record<string, string | number>; body: Buffer | null; endpoint: string };
}

function loadWebPush(): WebPushModule {
  let mod: unknown;
  try {
    mod = createRequire(import.meta.url)('web-push');
  } catch (cause) {
    const error = configError('push', 'the Web Push transport needs the optional peer dependency web-push: run `npm install web-push`');
    error.cause = cause;
    throw error;
  }
  if (typeof (mod as Partial<WebPushModule> | null)?.generateRequestDetails !== 'function') throw configError('push', 'web-push loaded but has no generateRequestDetails');
  return mod as WebPushModule;
}

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and `aes128gcm` payload encryption (RFC 8291): web-push
 * builds the signed, encrypted request and `fetch` sends it, so the timeout and the outcome are ours.
 * 404 and 410 from the push service mean the subscription is gone (`invalid`), as does an endpoint
 * outside `endpointHosts`.
 */
export function webPushTransport(options: WebPushOptions): PushTransport {
  const webPush = loadWebPush();
  const fetchImpl = options.fetch ?? fetch;
  const ttl = options.ttlSeconds ?? 86_400;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const hosts = (options.endpointHosts ?? DEFAULT_PUSH_SERVICE_HOSTS).map((host) => host.toLowerCase());
  return {
    kind: 'web',
    async send(target: PushTarget, data): Promise<PushOutcome> {
      if (target.kind !== 'web') return { outcome: 'failed', reason: 'not a Web Push subscription' };
      const refusal = endpointRefusal(target.subscription.endpoint, hosts, options.endpointHosts !== undefined);
      if (refusal) return { outcome: 'invalid', reason: refusal };
      let details: ReturnType<WebPushModule['generateRequestDetails']>;
      try {
        details = webPush.generateRequestDetails(
          { endpoint: target.subscription.endpoint, keys: { p256dh: target.subscription.keys.p256dh, auth: target.subscription.keys.auth } },
          JSON.stringify(data),
          { vapidDetails: options.vapid, TTL: ttl, contentEncoding: 'aes128gcm' },
        );
      } catch (error) {
        // A subscription whose keys cannot be used will never work.
        return { outcome: 'invalid', reason: error instanceof Error ? error.message.slice(0, 200) : 'bad subscription' };
      }
      try {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(details.headers)) headers[name] = String(value);
        const response = await fetchImpl(details.endpoint, {
          method: details.method,
          headers,
          ...(details.body ? { body: details.body } : {}),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (response.ok) {
          await response.body?.cancel();
          return { outcome: 'sent' };
        }
        const reason = `HTTP ${response.status} ${await readErrorText(response, 200)}`.trim();
        return { outcome: response.status === 404 || response.status === 410 ? 'invalid' : 'failed', reason };
      } catch (error) {
        return { outcome: 'failed', reason: error instanceof Error ? error.message.slice(0, 200) : 'request failed' };
      }
    },
  };
}
