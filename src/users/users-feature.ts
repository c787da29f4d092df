import { configError } from '../core/errors.js';
import { assertWindows } from '../counters/sliding-window.js';
import type { CounterStore } from '../counters/port.js';
import type { Feature, ServiceContext, SessionResolver } from '../http/types.js';
import type { MailTransport } from '../mail/port.js';
import type { ClassPolicy } from '../records/class-policy.js';
import type { ServiceRegistry } from '../service.js';
import type { PhoneValidator } from '../sms/phone.js';
import type { UserSmsCodes, UsersDeps } from './deps.js';
import { createLinkTokens } from './link-tokens.js';
import { createLoginThrottle } from './login-throttle.js';
import { DEFAULT_SCRYPT_PARAMS, type ScryptParams, scryptHasher } from './password-hash.js';
import { type UserLister, userRoutes } from './routes.js';
import { createSessionResolver } from './session-resolver.js';
import { createSessionStore } from './session-store.js';
import { SESSION_CLASS_POLICY, userClassPolicy } from './user-class-policy.js';
import { defaultUserPhoneValidator } from './user-fields.js';
import { createUserLister } from './user-list.js';
import { createUserStore } from './user-store.js';
import { SESSION_CLASS, USER_CLASS, createTableSetup } from './user-table.js';

/** Options of {@link createUsersFeature}. */
export interface UsersFeatureOptions {
  /** Where verification and reset links go: `memoryMailTransport()`, `smtpMailTransport({...})`, ... */
  mail: MailTransport;
  /**
   * The SMS feature's code API (`smsFeature.api`), or a function returning it (when the SMS feature
   * is created later). Without it, phone-code sign-up/login and SMS password reset answer 11007.
   */
  sms?: UserSmsCodes | (() => UserSmsCodes | undefined);
  /** Login-throttling counters (default: the service's shared `ctx.counters`). */
  counters?: CounterStore;
  /** Phone numbers accepted in user records (default: 11-digit mainland numbers or E.164). */
  phoneValidator?: PhoneValidator;
  /** scrypt cost (default N=2^15, r=8, p=3). Lower it only in tests. */
  scrypt?: ScryptParams;
  /**
   * The records feature's class-policy registry (`recordsFeature.policies`): `/1/classes/_User` then
   * follows the same rules as `/1/users`, and `/1/classes/_Session` needs the master key.
   */
  classPolicies?: { register(className: string, policy: ClassPolicy): void };
  /** Serves `GET /1/users` (default: the query engine's list handler over `_User`, passwords removed). */
  list?: UserLister;
}

/** The users feature: its routes plus what other features and hosts use. */
export interface UsersFeature extends Feature {
  /** Also published as `registry.sessions`. */
  readonly sessions: SessionResolver;
  /** The `_User` class policy (registered for you when `classPolicies` is given). */
  readonly classPolicy: ClassPolicy;
  /** Internals for hosts and tests: session store, user store, hasher. */
  readonly deps: UsersDeps;
}

/**
 * Creates the users feature: sign-up, login (password, phone code), sessions, current user, logout,
 * the user table's REST routes with their protection, password change and the two resets, email
 * verification, and the mailed link pages. Sets `registry.sessions` so every route can resolve
 * session tokens. See docs/users.md.
 *
 * @example
 * createService({ ..., features: [
 *   (ctx) => (records = createRecordsFeature(ctx)),
 *   (ctx, registry) => createUsersFeature(ctx, registry, { mail: memoryMailTransport(), sms: () => sms?.api, classPolicies: records.policies }),
 * ] })
 */
export function createUsersFeature(ctx: ServiceContext, registry: ServiceRegistry, options: UsersFeatureOptions): UsersFeature {
  if (!options.mail || typeof options.mail.send !== 'function') throw configError('users', 'createUsersFeature needs a mail transport');
  for (const app of ctx.applications.values()) {
    const throttle = app.settings.users.loginThrottle;
    for (const windows of [throttle.account, throttle.address]) if (windows.length > 0) assertWindows(windows);
    if (!(app.settings.users.sessionTtlMs > 0)) throw configError('users', `application '${app.applicationId}': users.sessionTtlMs must be positive`);
  }
  const counters = options.counters ?? ctx.counters;
  const sms = options.sms;
  const deps: UsersDeps = {
    storage: ctx.storage,
    clock: ctx.clock,
    random: ctx.random,
    logger: ctx.logger,
    ready: createTableSetup(ctx.storage, ctx.logger),
    users: createUserStore(ctx.storage),
    sessions: createSessionStore(ctx),
    hasher: scryptHasher(ctx.random, options.scrypt ?? DEFAULT_SCRYPT_PARAMS),
    links: createLinkTokens(ctx),
    mail: options.mail,
    get sms() {
      return typeof sms === 'function' ? sms() : sms;
    },
    throttle: createLoginThrottle({ counters, clock: ctx.clock, logger: ctx.logger }),
    phoneValidator: options.phoneValidator ?? defaultUserPhoneValidator,
  };
  const sessions = createSessionResolver(deps);
  registry.sessions = sessions;
  const classPolicy = userClassPolicy(deps);
  options.classPolicies?.register(USER_CLASS, classPolicy);
  options.classPolicies?.register(SESSION_CLASS, SESSION_CLASS_POLICY);
  const list = options.list ?? createUserLister(deps);
  return {
    name: 'users',
    routes: userRoutes(deps, ctx.applications, list),
    sessions,
    classPolicy,
    deps,
    async close() {
      await options.mail.close?.();
    },
  };
}
