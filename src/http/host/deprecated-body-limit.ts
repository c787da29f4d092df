import { configError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';

/** What this needs of a service: its logger (typed by shape, so http/ does not import the composition root). */
interface LoggingService {
  readonly context: { readonly logger: Logger };
}

const warned = new WeakSet<LoggingService>();

/**
 * The host-level `bodyLimit` of earlier versions: still a ceiling (it never loosens), with one
 * deprecation warning per service through its logger. Undefined when not set.
 */
export function deprecatedBodyLimit(service: LoggingService, host: string, limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isInteger(limit) || limit < 0) throw configError(host, `bodyLimit must be a non-negative integer, got ${limit}`);
  if (!warned.has(service)) {
    warned.add(service);
    service.context.logger.warn(`${host}({ bodyLimit }) is deprecated: set createService({ bodyLimit }) (per route: RouteDef.bodyLimit)`, { bodyLimit: limit });
  }
  return limit;
}
