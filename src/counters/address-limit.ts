import type { Logger } from '../core/logger.js';

/** Loggers already told, per limit, that requests without a client address skip it. */
const told = new WeakMap<Logger, Set<string>>();

/**
 * The one rule for per-client-address limits (captcha requests, login and sign-up throttling): a
 * request whose host supplied no client address is NOT counted in a shared "unknown" bucket (that
 * would let one client lock out everyone); the address limit is skipped and the logger gets one
 * warning per limit. Per-account and per-application limits still apply.
 *
 * @example if (limitedAddress(logger, rc.remoteAddress, 'captcha.requestLimits')) await consume(key(rc.remoteAddress));
 */
export function limitedAddress(logger: Logger, address: string | undefined, limit: string): address is string {
  if (address) return true;
  const names = told.get(logger) ?? new Set<string>();
  told.set(logger, names);
  if (!names.has(limit)) {
    names.add(limit);
    logger.warn(`requests without a client address skip the per-address limit ${limit}; see docs/mounting.md (client addresses)`, { limit });
  }
  return false;
}
