import { configError } from '../../core/errors.js';
import type { Service } from '../../service.js';

const warned = new WeakSet<Service>();

/**
 * The host-level `bodyLimit` of earlier versions: still a ceiling (it never loosens), with one
 * deprecation warning per service through its logger. Undefined when not set.
 */
export function deprecatedBodyLimit(service: Service, host: string, limit: number | undefined): number | undefined {
  if (limit === undefined) return undefined;
  if (!Number.isInteger(limit) || limit < 0) throw configError(host, `bodyLimit must be a non-negative integer, got ${limit}`);
  if (!warned.has(service)) {
    warned.add(service);
    service.context.logger.warn(`${host}({ bodyLimit }) is deprecated: set createService({ bodyLimit }) (per route: RouteDef.bodyLimit)`, { bodyLimit: limit });
  }
  return limit;
}
