import { type FeatureDefinition, featureKey } from '../features/contract.js';
import { RECORDS } from '../records/index.js';
import { SMS } from '../sms/index.js';
import type { Application } from '../app/application.js';
import { configError } from '../core/errors.js';
import type { CounterStore } from '../counters/port.js';
import { createRateLimiter } from '../counters/rate-limiter.js';
import { assertWindows } from '../counters/sliding-window.js';
import type { SessionResolver } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { KvStore } from '../kv/port.js';
import type { StorageAdapter } from '../storage/port.js';
import type { MailTransport } from '../mail/port.js';
import type { ClassPolicy, RecordsService } from '../records/index.js';
import type { PhoneValidator } from '../sms/index.js';
import type { UserSmsCodes, UsersDeps } from './deps.js';
import { type AccessControl, createAccessControl } from '../access/access-control.js';
import { DEFAULT_HASHING_LIMITS, type HashingLimits, gatedHasher } from './hash-gate.js';
import { createLinkTokens } from './link-tokens.js';
import { createLoginThrottle } from './login-throttle.js';
import { assertLinkBaseUrl } from './mail-templates.js';
import { DEFAULT_SCRYPT_PARAMS, type ScryptParams, scryptHasher } from './password-hash.js';
import { userRoutes } from './routes.js';
import { createSessionResolver } from './session-resolver.js';
import { createSessionStore } from './session-store.js';
import { createSignUpLimit } from './sign-up-limit.js';
import { userClassPolicy } from './user-class-policy.js';
import { defaultUserPhoneValidator } from './user-fields.js';
import { type UserLister, createUserLister } from './user-list.js';
import { type UsersService, createUsersService } from './users-service.js';
import { createUserStore } from './user-store.js';
import { AUTH_LINK_CLASS, USER_CLASS, createTableSetup } from './user-table.js';
import { AuthProviderRegistry } from './auth-providers.js';
import { createAuthLinkStore } from './auth-links.js';
import { MASTER_ONLY_TABLE } from '../access/table-rules.js';

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
  /** Password hashes at once and waiting (default 2 and 64); past both, 11102 with Retry-After. */
  hashing?: Partial<HashingLimits>;
  /**
   * The records feature's class-policy registry (`recordsFeature.policies`): `/1/classes/_User` then
   * follows the same rules as `/1/users`, and `/1/classes/_Session` needs the master key.
   */
  classPolicies?: { register(className: string, policy: ClassPolicy): void; resolve?(className: string): ClassPolicy };
  /** Serves `GET /1/users` (default: `records.list` over `_User`, passwords removed). */
  list?: UserLister;
  /** The records feature's service (`recordsFeature.service`): `GET /1/users` is its list over `_User`. Needed unless `list` is given. */
  records?: Pick<RecordsService, 'list'>;
  /** The records feature's access control (`recordsFeature.access`), so both share one role cache; default: a new one. */
  access?: AccessControl;
}

/**
 * What the users feature needs of the service's feature registry: a slot to publish its session
 * resolver in (the service's `registry` has it), so records, batch and every route resolve tokens.
 */
export interface SessionRegistry {
  sessions?: SessionResolver;
}

/** What the users feature takes from the service's feature context. */
export interface UsersFeatureContext {
  /** The observed storage (user and session writes reach the write pipeline). */
  readonly storage: StorageAdapter;
  /** Link tokens (verification, reset). */
  readonly kv: KvStore;
  /** Login throttling and sign-up limits (unless `options.counters`). */
  readonly counters: CounterStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** Applications by id (settings checked at start; mailed links name their application). */
  readonly applications: ReadonlyMap<string, Application>;
}

/** The users feature: its routes plus what other features and hosts use. */
export interface UsersFeature {
  readonly name: 'users';
  readonly routes: ReturnType<typeof userRoutes>;
  close(): Promise<void>;
  /** The users service (sign-up, login, me, update, delete, list, password flows with a Caller). */
  readonly service: UsersService;
  /** Also published as `registry.sessions`. */
  readonly sessions: SessionResolver;
  /** The `_User` class policy (registered for you when `classPolicies` is given). */
  readonly classPolicy: ClassPolicy;
  /** Internals for hosts and tests: session store, user store, hasher. */
  readonly deps: UsersDeps;
  /**
   * Verifiers of `authData` per platform: without one, `authData` of that platform is refused (208).
   * The wechat feature registers `weapp`.
   */
  readonly authProviders: AuthProviderRegistry;
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
export function createUsersFeature(ctx: UsersFeatureContext, registry: SessionRegistry, options: UsersFeatureOptions): UsersFeature {
  if (!options.mail || typeof options.mail.send !== 'function') throw configError('users', 'createUsersFeature needs a mail transport');
  for (const app of ctx.applications.values()) {
    const throttle = app.settings.users.loginThrottle;
    for (const windows of [throttle.account, throttle.address, app.settings.users.signUpLimits]) if (windows.length > 0) assertWindows(windows);
    if (!(app.settings.users.sessionTtlMs > 0)) throw configError('users', `application '${app.applicationId}': users.sessionTtlMs must be positive`);
    assertLinkSettings(app);
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
    hasher: gatedHasher(scryptHasher(ctx.random, options.scrypt ?? DEFAULT_SCRYPT_PARAMS), { ...DEFAULT_HASHING_LIMITS, ...options.hashing }),
    links: createLinkTokens(ctx),
    mail: options.mail,
    get sms() {
      return typeof sms === 'function' ? sms() : sms;
    },
    throttle: createLoginThrottle({ counters, clock: ctx.clock, logger: ctx.logger }),
    signUpLimit: createSignUpLimit({ limiter: createRateLimiter({ store: counters, clock: ctx.clock }), logger: ctx.logger }),
    phoneValidator: options.phoneValidator ?? defaultUserPhoneValidator,
    access: options.access ?? createAccessControl({ storage: ctx.storage, clock: ctx.clock }),
    authProviders: new AuthProviderRegistry(),
    authLinks: createAuthLinkStore(ctx),
  };
  const sessions = createSessionResolver(deps);
  registry.sessions = sessions;
  const classPolicy = userClassPolicy(deps);
  options.classPolicies?.register(USER_CLASS, classPolicy);
  // `_User` and `_Session` are built into access/ (a secret password; master key only); `_AuthLink` holds platform identities.
  deps.access.tables.declare(AUTH_LINK_CLASS, MASTER_ONLY_TABLE);
  const list = options.list ?? (options.records ? createUserLister(deps.ready, options.records) : undefined);
  if (!list) throw configError('users', 'createUsersFeature needs the records service (options.records) or a user lister (options.list)');
  const service = createUsersService(deps, list);
  return {
    name: 'users',
    routes: userRoutes(service, deps, ctx.applications),
    service,
    sessions,
    classPolicy,
    deps,
    authProviders: deps.authProviders,
    async close() {
      await options.mail.close?.();
    },
  };
}

/**
 * Mailed links take their base from configuration only (`users.linkBaseUrl`, else `publicUrl`; never
 * the request's Host). An application with email verification on mails links at sign-up, so it
 * cannot start without one.
 */
function assertLinkSettings(app: Application): void {
  const base = app.settings.users.linkBaseUrl;
  if (base !== undefined) assertLinkBaseUrl(app.applicationId, base);
  else if (app.settings.features.emailVerification && app.publicUrl === undefined) {
    throw configError('users', `application '${app.applicationId}': features.emailVerification needs publicUrl or users.linkBaseUrl (the public base URL of mailed links)`);
  }
}

/** The key of the users feature's API: `ctx.use(USERS)`. */
export const USERS = featureKey<UsersFeature>('users');

/**
 * Users as a feature definition, over the records feature (its `_User` policy, access control and
 * list) and, when present, the SMS feature's codes. `registry` receives the session resolver, which
 * the service publishes under the SESSIONS key; `mail` is where links go.
 */
export function usersFeature(options: Omit<UsersFeatureOptions, 'classPolicies' | 'access' | 'records' | 'sms'>, registry: SessionRegistry): FeatureDefinition<UsersFeature> {
  return {
    id: USERS.id,
    requires: [RECORDS.id],
    after: [SMS.id],
    init(ctx) {
      const records = ctx.use(RECORDS);
      const users = createUsersFeature(ctx, registry, {
        ...options,
        counters: options.counters ?? ctx.counters,
        sms: () => ctx.find(SMS),
        classPolicies: records.policies,
        access: records.access,
        records: records.service,
      });
      return { api: users, routes: users.routes, close: () => users.close() };
    },
  };
}
