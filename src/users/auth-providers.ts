import type { Application } from '../app/application.js';
import { configError } from '../core/errors.js';
import type { JsonObject } from '../core/wire-values.js';

/** What a provider proved about one `authData.<platform>` value. */
export interface VerifiedIdentity {
  /** The platform's id of the person (the WeChat openid): one svcbase user per id. */
  readonly id: string;
  /** Kept with the link and shown to the user itself (`authData.<platform>` of its replies). */
  readonly stored: JsonObject;
  /** Shown in this login's reply only, over `stored` (e.g. the session key the client sent). */
  readonly reply?: JsonObject;
}

/**
 * Verifies `authData` of one platform (the key under `authData`, such as `weapp`). Throw a coded error
 * (208 `authDataInvalid`) when the data does not prove the identity: without a provider, svcbase
 * accepts no authData of that platform at all, because an unverified openid would let anyone log in
 * as anyone.
 */
export interface AuthProvider {
  verify(app: Application, data: JsonObject): Promise<VerifiedIdentity>;
}

/** Platform names: lower-case letters and digits, as `weapp`, `qqapp`, `toutiao`. */
export const AUTH_PLATFORM_NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** The providers the users feature accepts `authData` for; features register theirs at start-up. */
export class AuthProviderRegistry {
  readonly #providers = new Map<string, AuthProvider>();

  register(platform: string, provider: AuthProvider): void {
    if (!AUTH_PLATFORM_NAME.test(platform)) throw configError('users', `invalid authData platform name '${platform}'`);
    if (this.#providers.has(platform)) throw configError('users', `an authData provider for '${platform}' is already registered`);
    this.#providers.set(platform, provider);
  }

  get(platform: string): AuthProvider | undefined {
    return this.#providers.get(platform);
  }
}
