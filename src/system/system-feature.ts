import { formatDateTime } from '../core/time.js';
import type { Feature, ServiceContext } from '../http/types.js';

/** Service-level routes that belong to no other feature: `GET /1/timestamp`. */
export function createSystemFeature(ctx: ServiceContext): Feature {
  return {
    name: 'system',
    routes: [
      {
        method: 'GET',
        path: '/1/timestamp',
        auth: 'app',
        body: 'none',
        handler: (route) => {
          const now = ctx.clock.now();
          return { body: { timestamp: Math.floor(now / 1000), datetime: formatDateTime(now, route.app.settings.timeZone) } };
        },
      },
    ],
  };
}
