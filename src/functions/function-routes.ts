import type { Json } from '../core/wire-values.js';
import { isJsonContentType, parseFormBody, parseJsonBody } from '../http/body.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import type { FunctionRequest } from './contract.js';
import type { FunctionRunner } from './function-runner.js';
import type { SentReply } from './function-response.js';
import { copyOf } from '../core/copy.js';

export interface FunctionRouteDeps {
  readonly runner: FunctionRunner;
  /** Prefix of the plain-HTTP form (`<path>/<secretKey>/<name>`), '' for the root. */
  readonly path: string;
}

function headersOf(rc: RouteContext): { [key: string]: string } {
  const out: { [key: string]: string } = {};
  for (const [name, value] of Object.entries(rc.headers)) if (typeof value === 'string') out[name.toLowerCase()] = value;
  return out;
}

function queryOf(rc: RouteContext): { [key: string]: string } {
  const out: { [key: string]: string } = Object.create(null) as { [key: string]: string };
  for (const [key, value] of rc.query) if (!(key in out)) out[key] = value;
  return out;
}

/** The body's bytes are already within the route's limit; this only bounds nesting. */
const PARAM_LIMITS = { maxBytes: Number.POSITIVE_INFINITY, maxDepth: 32 };

/**
 * The params of a body read raw: a JSON object when the content type says JSON (refused as every
 * JSON body is when it is not one), else the urlencoded fields, as the plain-HTTP POST always read them.
 */
function paramsOf(rc: RouteContext): FunctionRequest['body'] {
  if (!rc.rawBody || rc.rawBody.length === 0) return {};
  const type = rc.headers['content-type'];
  const contentType = typeof type === 'string' ? type : undefined;
  return isJsonContentType(contentType) ? parseJsonBody(rc.rawBody, contentType, PARAM_LIMITS) : parseFormBody(rc.rawBody, PARAM_LIMITS);
}

/** A function's request over a route: `query` and `headers` are copied only when the function reads them. */
class RouteRequest implements FunctionRequest {
  readonly raw?: Uint8Array;
  // #private: a function spreading or listing its request sees only the request's own fields.
  readonly #rc: RouteContext;
  #query: FunctionRequest['query'] | undefined;
  #headers: FunctionRequest['headers'] | undefined;

  constructor(
    rc: RouteContext,
    readonly method: string,
    readonly body: FunctionRequest['body'],
    readonly path: string,
  ) {
    this.#rc = rc;
    if (rc.rawBody && rc.rawBody.length > 0) this.raw = rc.rawBody;
  }

  get query(): FunctionRequest['query'] {
    return (this.#query ??= queryOf(this.#rc));
  }

  get headers(): FunctionRequest['headers'] {
    return (this.#headers ??= headersOf(this.#rc));
  }

  /** What `JSON.stringify(request)` shows a function (the getters live on the prototype). */
  toJSON(): object {
    return { method: this.method, body: this.body, query: this.query, headers: this.headers, path: this.path };
  }
}

function requestOf(rc: RouteContext, method: string, body: FunctionRequest['body'], path: string): FunctionRequest {
  return new RouteRequest(rc, method, body, path);
}

/** What a function sent, as a REST reply: `{"result": value}` (bytes as UTF-8 text). */
function restResult(reply: SentReply): RouteResult {
  const value = reply.value instanceof Uint8Array ? Buffer.from(reply.value).toString('utf8') : reply.value;
  return { body: { result: (value ?? null) as Json } };
}

/** The value a function sent, as a plain-HTTP reply: text as is, anything else as JSON. */
function plainReply(reply: SentReply): RouteResult {
  const headers: Record<string, string> = copyOf(reply.headers);
  if (typeof reply.value === 'string') {
    headers['content-type'] ??= 'text/plain; charset=utf-8';
    return { status: reply.status, headers, body: reply.value, raw: true };
  }
  if (reply.value instanceof Uint8Array) {
    headers['content-type'] ??= 'application/octet-stream';
    return { status: reply.status, headers, body: reply.value, raw: true };
  }
  return { status: reply.status, headers, body: (reply.value ?? null) as Json };
}

/**
 * `POST /1/functions/:name` (application keys, signed headers or a session token; the body a JSON
 * object, `{}` when none; reply `{"result": <what the function sent>}`) and the plain-HTTP form with
 * the secret key as a path segment and no other credential: `GET|POST <path>/:secretKey/:name`
 * (query string, or urlencoded form fields), `<path>/:secretKey` running `index`, an unknown name
 * running `notfound` when defined. The reply there is what the function sent, with its status and
 * headers. The path's secret key is checked by http/ (`auth: 'function-path'`): an unknown one answers
 * 404 (11001), as an unknown route does.
 */
/** Methods the any-method forms add beside GET and POST. */
const ANY_OTHER_METHOD = ['PUT', 'DELETE', 'PATCH'] as const;

export function functionRoutes(deps: FunctionRouteDeps): RouteDef[] {
  const plain = (rc: RouteContext, name: string, body: FunctionRequest['body']) => async (): Promise<RouteResult> => {
    const { secretKey = '', name: asked } = rc.params;
    const request = requestOf(rc, rc.method, body, `${deps.path.replace(/\/+$/, '')}/${secretKey}${asked ? `/${asked}` : ''}`);
    return plainReply(await deps.runner.invoke({ caller: rc.caller, name, request, depth: 0, fallback: 'notfound' }));
  };
  const base = deps.path.replace(/\/+$/, '');
  const routes: RouteDef[] = [
    {
      method: 'POST',
      path: '/1/functions/:name',
      auth: 'app',
      body: 'optional-json',
      summary: 'Runs a cloud function; the reply carries what it sent',
      responses: { 200: { type: 'object', required: ['result'], properties: { result: {} } } },
      handler: (rc) => {
        const request = requestOf(rc, 'POST', rc.body ?? {}, `/1/functions/${rc.params['name'] ?? ''}`);
        const reply = deps.runner.invoke({ caller: rc.caller, name: rc.params['name'] ?? '', request, depth: 0 });
        // A function that sent before returning answers without a promise.
        return reply instanceof Promise ? reply.then(restResult) : restResult(reply);
      },
    },
  ];
  // The Java host's forms (rest-facts §7.1): any other method, any content type, the keys or the master
  // key alone; the reply is what the function sent, as on the plain-HTTP path. GET has no body: the
  // function reads its query.
  routes.push({
    method: 'GET',
    path: '/1/functions/:name',
    auth: 'app',
    body: 'none',
    handler: async (rc) => plainReply(await deps.runner.invoke({ caller: rc.caller, name: rc.params['name'] ?? '', request: requestOf(rc, 'GET', {}, `/1/functions/${rc.params['name'] ?? ''}`), depth: 0 })),
  });
  for (const method of ANY_OTHER_METHOD) {
    routes.push({
      method,
      path: '/1/functions/:name',
      auth: 'app',
      body: 'raw',
      handler: async (rc) => plainReply(await deps.runner.invoke({ caller: rc.caller, name: rc.params['name'] ?? '', request: requestOf(rc, method, paramsOf(rc), `/1/functions/${rc.params['name'] ?? ''}`), depth: 0 })),
    });
  }
  for (const [suffix, nameOf] of [['/:secretKey/:name', (rc: RouteContext) => rc.params['name'] ?? ''], ['/:secretKey', () => 'index']] as const) {
    for (const method of ANY_OTHER_METHOD) routes.push({ method, path: `${base}${suffix}`, auth: 'function-path', body: 'raw', handler: (rc) => plain(rc, nameOf(rc), paramsOf(rc))() });
    routes.push(
      { method: 'GET', path: `${base}${suffix}`, auth: 'function-path', body: 'none', handler: (rc) => plain(rc, nameOf(rc), {})() },
      { method: 'POST', path: `${base}${suffix}`, auth: 'function-path', body: 'raw', handler: (rc) => plain(rc, nameOf(rc), paramsOf(rc))() },
    );
  }
  return routes;
}
