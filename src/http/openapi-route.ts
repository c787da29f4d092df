import { openApiDocument } from './openapi.js';
import type { RouteDef } from './types.js';

/**
 * `GET /1/openapi.json`: the OpenAPI 3.1 description of `routes` (the service's whole table, this
 * route included), built on the first request and kept. No credentials: it describes the API, it
 * holds no data.
 */
export function openApiRoute(routes: readonly RouteDef[], brand: string): RouteDef {
  let text: string | undefined;
  return {
    method: 'GET',
    path: '/1/openapi.json',
    auth: 'none',
    body: 'none',
    summary: 'This description',
    handler: () => {
      text ??= JSON.stringify(openApiDocument({ routes, brand, version: '1' }));
      return { headers: { 'content-type': 'application/json; charset=utf-8' }, body: text, raw: true };
    },
  };
}
