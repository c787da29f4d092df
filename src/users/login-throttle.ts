import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { type Logger, silentLogger } from '../core/logger.js';
import { limitedAddress } from '../counters/address-limit.js';
import { retryError } from '../core/errors.js';
import { sha256Hex } from '../core/secrets.js';
import type { CounterStore } from '../counters/port.js';

/**
 * Login throttling (beyond the hosted service): every login attempt counts against the client
 * address and, for password logins, against the account. A full window answers 11050 with
 * Retry-After. Each check is the CounterStore's one atomic `consume`, so concurrent guesses cannot
 * slip past a limit. Keys hold a hash of the account identifier, never the identifier itself.
 */
export interface LoginThrottle {
  /** Counts one attempt from `address` (skipped without an address: {@link limitedAddress}); throws 11050 when over the limit. */
  hitAddress(app: Application, address: string | undefined): Promise<void>;
  /** Counts one attempt on `account` (a user id, or the identifier tried); throws 11050 when over. */
  hitAccount(app: Application, account: string): Promise<void>;
  /** Forgets the account's attempts (after a successful login). Address counts are kept. */
  resetAccount(app: Application, account: string): Promise<void>;
}

/** @example const throttle = createLoginThrottle({ counters: memoryCounterStore(), clock }); */
export function createLoginThrottle(deps: { counters: CounterStore; clock: Clock; logger?: Logger }): LoginThrottle {
  const { counters, clock, logger = silentLogger } = deps;
  const accountKey = (app: Application, account: string) => `login:acct:${app.applicationId}:${sha256Hex(account)}`;
  const consume = async (key: string, windows: ReadonlyArray<{ limit: number; windowMs: number }>) => {
    if (windows.length === 0) return;
    const result = await counters.consume(key, windows, clock.now());
    if (!result.allowed) throw retryError('loginThrottled', result.retryAfterMs);
  };
  return {
    async hitAddress(app, address) {
      const settings = app.settings.users.loginThrottle;
      if (!settings.enabled || !limitedAddress(logger, address, 'users.loginThrottle.address')) return;
      await consume(`login:addr:${app.applicationId}:${address}`, settings.address);
    },
    async hitAccount(app, account) {
      const settings = app.settings.users.loginThrottle;
      if (!settings.enabled) return;
      await consume(accountKey(app, account), settings.account);
    },
    async resetAccount(app, account) {
      if (!app.settings.users.loginThrottle.enabled) return;
      await counters.reset(accountKey(app, account));
    },
  };
}
