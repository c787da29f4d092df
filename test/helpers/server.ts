import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { memoryStorage } from '../../src/memory.js';
import { toNodeListener } from '../../src/node.js';
import { type Service, type ServiceOptions, createService } from '../../src/service.js';
import type { ApplicationConfig } from '../../src/app/application.js';

/** The application every test server gets unless the test passes its own. */
export const TEST_APP: ApplicationConfig = {
  applicationId: 'test-app',
  restApiKey: 'test-rest-key',
  masterKey: 'test-master-key',
  secretKey: 'test-secret-key1',
  securityCode: 'test-safe-code',
};

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Raw body text (sent as is). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Send the first application's id + REST key (default true). */
  auth?: boolean | 'master';
}

export interface TestServer {
  url: string;
  service: Service;
  server: Server;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

/** Default REST headers of an application under a brand. */
export function appHeaders(app: ApplicationConfig = TEST_APP, brand = 'Svc'): Record<string, string> {
  return { [`X-${brand}-Application-Id`]: app.applicationId, [`X-${brand}-REST-API-Key`]: app.restApiKey };
}

/**
 * Starts a real node:http server on an ephemeral loopback port with a fresh service (memory storage
 * unless `storage` is given). `request()` sends JSON with the first application's REST keys.
 */
export async function startTestServer(options: Partial<ServiceOptions> = {}): Promise<TestServer> {
  const service = createService({
    ...options,
    storage: options.storage ?? memoryStorage(),
    applications: options.applications ?? [TEST_APP],
  });
  const server = createServer(toNodeListener(service));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const firstApp = (options.applications ?? [TEST_APP])[0]!;
  const request = async <T>(method: string, path: string, opts: RequestOptions = {}): Promise<TestResponse<T>> => {
    const headers: Record<string, string> = {};
    if (opts.auth !== false) Object.assign(headers, appHeaders(firstApp));
    if (opts.auth === 'master') headers['X-Svc-Master-Key'] = firstApp.masterKey;
    let body: string | Uint8Array | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, opts.headers);
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  return {
    url,
    service,
    server,
    request,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}
