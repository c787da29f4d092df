import { memoryStorage } from '../../src/memory.js';
import { type Service, type ServiceOptions, createService } from '../../src/service.js';
import { type RequestOptions, TEST_APP, type TestResponse, appHeaders } from './server.js';

/**
 * Sends one request straight to `service.handle`: no socket, no port, the same request shape the host
 * glue produces (headers lower-cased, body as bytes). For HTTP-behaviour tests; mounting, streaming and
 * upgrades keep their real-socket tests (test/e2e).
 */
export async function handleRequest<T = any>(service: Service, method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
  const firstApp = [...service.applications.values()][0];
  const headers = new Headers();
  if (options.auth !== false && firstApp) for (const [name, value] of Object.entries(appHeaders(firstApp))) headers.set(name, value);
  if (options.auth === 'master' && firstApp) headers.set('x-svc-master-key', firstApp.masterKey);
  let body: Uint8Array | null = null;
  if (options.rawBody !== undefined) body = typeof options.rawBody === 'string' ? new TextEncoder().encode(options.rawBody) : options.rawBody;
  else if (options.body !== undefined) {
    body = new TextEncoder().encode(JSON.stringify(options.body));
    headers.set('content-type', 'application/json');
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
  if (body && !headers.has('content-length')) headers.set('content-length', String(body.length));
  const queryAt = path.indexOf('?');
  const plain: Record<string, string> = {};
  headers.forEach((value, name) => {
    plain[name] = value;
  });
  const response = await service.handle({
    method,
    path: queryAt === -1 ? path : path.slice(0, queryAt),
    search: queryAt === -1 ? '' : path.slice(queryAt + 1),
    headers: plain,
    body: body && body.length > 0 ? body : null,
    remoteAddress: '127.0.0.1',
    baseUrl: 'http://127.0.0.1',
  });
  const text = typeof response.body === 'string' ? response.body : new TextDecoder().decode(response.body);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: response.status, headers: new Headers(response.headers), body: parsed as T, text };
}

/** A service with the same `request()` as `startTestServer`'s, answered by {@link handleRequest}. */
export interface TestService {
  service: Service;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  close(): Promise<void>;
}

export function startTestService(options: Partial<ServiceOptions> = {}): TestService {
  const service = createService({ ...options, storage: options.storage ?? memoryStorage(), applications: options.applications ?? [TEST_APP] });
  return {
    service,
    request: (method, path, opts) => handleRequest(service, method, path, opts),
    close: () => service.close(),
  };
}
