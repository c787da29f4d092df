import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';

/** Limits of `modules.oHttp` (docs/functions.md). */
export interface HttpModuleOptions {
  /** Whole request, connect to last byte (default 5000 ms). */
  readonly timeoutMs?: number;
  /** Largest response body read (default 1 MiB); past it the call fails with 11038. */
  readonly maxResponseBytes?: number;
  /**
   * Hosts (names or literal addresses) a function may reach even when they resolve to loopback or
   * private addresses, e.g. `['127.0.0.1']` for a service beside the host. Default none.
   */
  readonly allowHosts?: readonly string[];
}

/** What `oHttp.get`/`post` take: a URL, or the npm `request` package's common options. */
export type HttpRequestOptions = string | { url: string; method?: string; headers?: { [name: string]: string }; body?: string; json?: Json; form?: { [key: string]: string } };

export interface HttpResult {
  statusCode: number;
  headers: { [name: string]: string };
  body: string;
}

export type HttpCallback = (error: { code: number; error: string } | null, res?: HttpResult, body?: string) => void;

export interface HttpModule {
  get(options: HttpRequestOptions, callback?: HttpCallback): Promise<HttpResult> | void;
  post(options: HttpRequestOptions, callback?: HttpCallback): Promise<HttpResult> | void;
}

/**
 * Addresses a function may not reach unless its host is allowed: loopback, private, link-local,
 * carrier-grade NAT, documentation, benchmarking, multicast and reserved ranges, and IPv6's
 * equivalents (v4-mapped addresses are checked as IPv4 by Node's BlockList).
 */
const BLOCKED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(network, prefix, 'ipv6');

function blocked(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1]!, 'ipv4');
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The DNS lookup of guarded requests: resolves as usual, then refuses blocked addresses. It runs at
 * connect time, so the address checked is the address connected to (no window for DNS rebinding).
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 4);
    const list = addresses as LookupAddress[];
    const refused = list.find((entry) => blocked(entry.address));
    if (refused || list.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }), '', 4);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

function optionsOf(input: HttpRequestOptions, method: 'GET' | 'POST') {
  const options = typeof input === 'string' ? { url: input } : input;
  if (typeof options !== 'object' || options === null || typeof options.url !== 'string') throw svcError('paramRequired', 'url');
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw svcError('httpRefused', String(options.url).slice(0, 128), 'not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw svcError('httpRefused', url.protocol, 'only http and https');
  const headers: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = String(value);
  let body: string | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  } else if (options.form !== undefined) {
    body = new URLSearchParams(options.form).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  } else if (options.body !== undefined) body = String(options.body);
  return { url, method: (options.method ?? method).toUpperCase(), headers, body };
}

function headerMap(headers: IncomingHttpHeaders): { [name: string]: string } {
  const out: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * `modules.oHttp` (the hosted service's `request`-style module): one request with a timeout and a
 * response size cap, no redirects followed (the function sees the 3xx), and no loopback, private or
 * link-local destination unless the host allows it (`functions.http.allowHosts`): literal addresses
 * are checked before connecting, names at connect time.
 */
export function httpModule(settings: HttpModuleOptions, signal: AbortSignal): HttpModule {
  const timeoutMs = settings.timeoutMs ?? 5000;
  const maxBytes = settings.maxResponseBytes ?? 1024 * 1024;
  const allowed = new Set((settings.allowHosts ?? []).map((host) => host.toLowerCase()));

  const send = (input: HttpRequestOptions, method: 'GET' | 'POST'): Promise<HttpResult> =>
    new Promise<HttpResult>((resolve, reject) => {
      const { url, method: verb, headers, body } = optionsOf(input, method);
      const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
      const trusted = allowed.has(host);
      if (!trusted && isIP(host) !== 0 && blocked(host)) throw svcError('httpRefused', host, 'a loopback, private or reserved address');
      const options: RequestOptions = { method: verb, headers, signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]), ...(trusted ? {} : { lookup: guardedLookup }) };
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            response.destroy();
            reject(svcError('httpTooLarge', maxBytes));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ statusCode: response.statusCode ?? 0, headers: headerMap(response.headers), body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', (error) => reject(svcError('httpFailed', error.message)));
      });
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPRIVATE') reject(svcError('httpRefused', host, 'a loopback, private or reserved address'));
        else reject(svcError('httpFailed', error.name === 'AbortError' || error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : error.message));
      });
      request.end(body);
    });

  const both = (method: 'GET' | 'POST') => (input: HttpRequestOptions, callback?: HttpCallback): Promise<HttpResult> | void => {
    const result = Promise.resolve().then(() => send(input, method));
    if (!callback) return result;
    result.then(
      (res) => callback(null, res, res.body),
      (error: { code?: number; message?: string }) => callback({ code: error.code ?? 11037, error: error.message ?? String(error) }),
    );
  };
  return { get: both('GET'), post: both('POST') };
}
