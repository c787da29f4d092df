import type { Application } from '../app/application.js';
import { retryError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { limitedAddress } from '../counters/address-limit.js';
import type { RateLimiter } from '../counters/rate-limiter.js';
import type { Caller } from '../app/caller.js';

/** Counts one sign-up against the client address's `users.signUpLimits`; 10076 with Retry-After when over. */
export type SignUpLimit = (app: Application, caller: Pick<Caller, 'isMaster' | 'address'>) => Promise<void>;

/**
 * The per-address sign-up limit. Master-key callers are not counted (trusted servers). A request
 * without a client address (the host supplied none) is not counted either: one shared bucket would
 * let one client lock everybody out (`limitedAddress` logs that once).
 */
export function createSignUpLimit(deps: { limiter: RateLimiter; logger: Logger }): SignUpLimit {
  return async (app, caller) => {
    const windows = app.settings.users.signUpLimits;
    if (windows.length === 0 || caller.isMaster || !limitedAddress(deps.logger, caller.address, 'users.signUpLimits')) return;
    const decision = await deps.limiter.consume(`signup:addr:${app.applicationId}:${caller.address}`, windows);
    if (!decision.allowed) throw retryError('requestRateLimited', decision.retryAfterMs, 'signUp');
  };
}
