import type { RouteDef } from '../features/routes.js';
import { bqlValues, executeBql } from './bql.js';
import type { RecordsService } from './records-service.js';

/** `GET /1/cloudQuery?bql=…&values=[…]` (rest-facts §3.11): BQL over the records list service. */
export function bqlRoutes(records: RecordsService): RouteDef[] {
  return [
    {
      method: 'GET',
      path: '/1/cloudQuery',
      auth: 'app',
      body: 'none',
      handler: async (rc) => ({ body: await executeBql(records, rc.caller, rc.query.get('bql') ?? '', bqlValues(rc.query.get('values'))) }),
    },
  ];
}
