import { ROLE_CLASS } from '../access/role-lookup.js';
import type { RouteDef } from '../features/routes.js';
import type { RecordsService } from './records-service.js';
import { tableRoutes } from './records-routes.js';

/**
 * `/1/roles` (rest-facts §5.3): the records routes over `_Role`, so every rule of `/1/classes/_Role`
 * applies (the role policy, ACLs, class-level permissions). `POST` answers 201 with a Location.
 */
export function roleRoutes(records: RecordsService): RouteDef[] {
  return tableRoutes(records, '/1/roles', () => ROLE_CLASS, () => '/1/roles');
}
