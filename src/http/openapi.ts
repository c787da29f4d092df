import type { RouteDef } from './types.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON Schema of a coded error body: `{"code": 101, "error": "object not found for x."}`. */
export const ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['code', 'error'],
  properties: { code: { type: 'integer' }, error: { type: 'string' } },
};

/** The body of a request that failed authentication (no code, as the hosted service answers). */
const UNAUTHORIZED_SCHEMA: Json = { type: 'object', required: ['error'], properties: { error: { const: 'unauthorized' } } };

export interface OpenApiInput {
  readonly routes: readonly RouteDef[];
  /** The first brand names the credential headers (`Svc`: `X-Svc-Application-Id`, ...). */
  readonly brand: string;
  readonly version: string;
}


/** `/1/classes/:table/:objectId` → `/1/classes/{table}/{objectId}`, with its parameter names. */
function openApiPath(pattern: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = pattern.replace(/:([A-Za-z0-9_]+)/g, (_match, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: path === '' ? '/' : path, params };
}

function requestBody(route: RouteDef): Json | undefined {
  switch (route.body) {
    case 'json':
    case 'optional-json':
      return { required: route.body === 'json', content: { 'application/json': { schema: (route.schema as Json | undefined) ?? { type: 'object' } } } };
    case 'form':
      return { required: false, content: { 'application/x-www-form-urlencoded': { schema: { type: 'object', additionalProperties: { type: 'string' } } } } };
    case 'raw':
    case 'stream':
      return { required: false, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } };
    default:
      return undefined;
  }
}

function security(route: RouteDef): Json {
  switch (route.auth) {
    case 'app':
    case 'upload':
      // Application id + REST key (a session token may come with them), or the master key alone.
      return [{ applicationId: [], restApiKey: [] }, { applicationId: [], restApiKey: [], sessionToken: [] }, { masterKey: [] }];
    case 'master':
      return [{ masterKey: [] }];
    case 'bearer':
      return [{ operatorToken: [] }];
    default:
      return [];
  }
}

/**
 * An OpenAPI 3.1 description of a service's route table: every route with its path parameters,
 * credentials, request body (a route's JSON Schema when it has one) and responses (a route's declared
 * response schemas; coded errors for the rest). Generated from the routes the service actually
 * serves, so it lists features that are on and nothing else.
 */
export function openApiDocument(input: OpenApiInput): Record<string, Json> {
  const prefix = `X-${input.brand}-`;
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of input.routes) {
    if (route.method === '*') continue;
    const { path, params } = openApiPath(route.path);
    const responses: Record<string, Json> = {};
    for (const [status, schema] of Object.entries(route.responses ?? {})) {
      responses[status] = { description: `HTTP ${status}`, content: { 'application/json': { schema: schema as Json } } };
    }
    if (Object.keys(responses).length === 0) responses['200'] = { description: 'Success (see the docs of this route for its body)' };
    if (route.auth === 'app' || route.auth === 'master' || route.auth === 'upload' || route.auth === 'bearer') responses['401'] = { description: 'Missing or wrong credentials', content: { 'application/json': { schema: UNAUTHORIZED_SCHEMA } } };
    responses['default'] = { description: 'A coded error (docs/errors.md)', content: { 'application/json': { schema: ERROR_SCHEMA } } };
    const body = requestBody(route);
    const operation: Record<string, Json> = {
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      ...(route.summary ? { summary: route.summary } : {}),
      parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      security: security(route),
      responses,
      ...(body ? { requestBody: body } : {}),
    };
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svcbase', version: input.version, description: 'The REST API this service serves (generated from its route table).' },
    paths,
    components: {
      securitySchemes: {
        applicationId: { type: 'apiKey', in: 'header', name: `${prefix}Application-Id` },
        restApiKey: { type: 'apiKey', in: 'header', name: `${prefix}REST-API-Key` },
        masterKey: { type: 'apiKey', in: 'header', name: `${prefix}Master-Key` },
        sessionToken: { type: 'apiKey', in: 'header', name: `${prefix}Session-Token` },
        operatorToken: { type: 'http', scheme: 'bearer' },
      },
    },
  };
}
