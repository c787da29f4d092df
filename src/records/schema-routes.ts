import type { JsonObject } from '../core/wire-values.js';
import type { RouteContext, RouteDef } from '../features/routes.js';
import type { SchemaService } from './schema-service.js';
import { OK_REPLY, SCHEMA_REPLY, resultsOf } from '../http/reply-schemas.js';

const bodyOf = (rc: RouteContext): JsonObject => rc.body ?? {};
const classOf = (rc: RouteContext): string => rc.params['className'] ?? '';

/** `GET /1/schemas`, `GET|POST|PUT|DELETE /1/schemas/:className`: master key only (401 otherwise). */
export function schemaRoutes(schemas: SchemaService): RouteDef[] {
  return [
    { method: 'GET', path: '/1/schemas', auth: 'master', body: 'none', responses: { 200: resultsOf(SCHEMA_REPLY) }, handler: async (rc) => ({ body: await schemas.list(rc.caller) }) },
    { method: 'GET', path: '/1/schemas/:className', auth: 'master', body: 'none', responses: { 200: SCHEMA_REPLY }, handler: async (rc) => ({ body: await schemas.get(rc.caller, classOf(rc)) }) },
    {
      method: 'POST',
      path: '/1/schemas/:className',
      auth: 'master',
      body: 'json',
      responses: { 201: SCHEMA_REPLY },
      handler: async (rc) => ({ status: 201, body: await schemas.create(rc.caller, classOf(rc), bodyOf(rc)) }),
    },
    { method: 'PUT', path: '/1/schemas/:className', auth: 'master', body: 'json', responses: { 200: SCHEMA_REPLY }, handler: async (rc) => ({ body: await schemas.update(rc.caller, classOf(rc), bodyOf(rc)) }) },
    {
      method: 'DELETE',
      path: '/1/schemas/:className',
      auth: 'master',
      body: 'none',
      responses: { 200: OK_REPLY },
      handler: async (rc) => {
        await schemas.delete(rc.caller, classOf(rc));
        return { body: { msg: 'ok' } };
      },
    },
  ];
}
