import { ROLE_CLASS } from '../access/role-lookup.js';
import type { JsonObject } from '../core/wire-values.js';
import type { RouteContext, RouteDef } from '../http/types.js';
import { commaList } from '../query/parse/options.js';
import type { RecordsService } from './records-service.js';

const bodyOf = (rc: RouteContext): JsonObject => rc.body ?? {};
const objectIdOf = (rc: RouteContext): string => rc.params['objectId'] ?? '';

/**
 * `/1/roles` (rest-facts §5.3): the records service over `_Role`, so every rule of `/1/classes/_Role`
 * applies (the role policy, ACLs, class-level permissions). `POST` answers 201 with a Location.
 */
export function roleRoutes(records: RecordsService): RouteDef[] {
  return [
    {
      method: 'POST',
      path: '/1/roles',
      auth: 'app',
      body: 'json',
      handler: async (rc) => {
        const result = await records.create(rc.caller, ROLE_CLASS, bodyOf(rc));
        if (result.kind === 'loggedIn') return { body: result.reply };
        return { status: 201, headers: { location: `${rc.baseUrl}/1/roles/${result.objectId}` }, body: result.reply };
      },
    },
    {
      method: 'GET',
      path: '/1/roles',
      auth: 'app',
      body: 'none',
      handler: async (rc) => ({ body: await records.list(rc.caller, ROLE_CLASS, rc.query) }),
    },
    {
      method: 'GET',
      path: '/1/roles/:objectId',
      auth: 'app',
      body: 'none',
      handler: async (rc) => {
        const include = rc.query.get('include');
        const options = { keys: commaList(rc.query, 'keys'), include: include === null ? [] : [include] };
        return { body: await records.get(rc.caller, ROLE_CLASS, objectIdOf(rc), options) };
      },
    },
    {
      method: 'PUT',
      path: '/1/roles/:objectId',
      auth: 'app',
      body: 'json',
      handler: async (rc) => ({ body: await records.update(rc.caller, ROLE_CLASS, objectIdOf(rc), bodyOf(rc)) }),
    },
    {
      method: 'DELETE',
      path: '/1/roles/:objectId',
      auth: 'app',
      body: 'none',
      handler: async (rc) => {
        await records.delete(rc.caller, ROLE_CLASS, objectIdOf(rc));
        return { body: { msg: 'ok' } };
      },
    },
  ];
}
