import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Random } from '../core/random.js';
import type { MailTransport } from '../mail/port.js';
import type { SmsApi, PhoneValidator } from '../sms/index.js';
import type { StorageAdapter } from '../storage/port.js';
import type { AccessControl } from '../access/access-control.js';
import type { LinkTokens } from './link-tokens.js';
import type { LoginThrottle } from './login-throttle.js';
import type { PasswordHasher } from './password-hash.js';
import type { SessionStore } from './session-store.js';
import type { SignUpLimit } from './sign-up-limit.js';
import type { UserStore } from './user-store.js';
import type { AuthLinkStore } from './auth-links.js';
import type { AuthProviderRegistry } from './auth-providers.js';

/** The SMS code operations the users feature needs (the SMS feature's `api` has them). */
export type UserSmsCodes = Pick<SmsApi, 'verifyCode' | 'redeemCode'>;

/** Everything the user flows share; built once by `createUsersFeature`. */
export interface UsersDeps {
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  /** Creates the user and session tables and their indexes on first use. */
  readonly ready: (app: Application) => Promise<void>;
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly hasher: PasswordHasher;
  readonly links: LinkTokens;
  readonly mail: MailTransport;
  /** Absent: phone-code sign-up/login and SMS reset answer 11007. */
  readonly sms: UserSmsCodes | undefined;
  readonly throttle: LoginThrottle;
  /** Per-address sign-up limit (`users.signUpLimits`). */
  readonly signUpLimit: SignUpLimit;
  readonly phoneValidator: PhoneValidator;
  /** ACL checks of user reads, lists, updates and deletes (the records feature's, so roles are shared). */
  readonly access: AccessControl;
  /** Verifiers of `authData` per platform (features register theirs). */
  readonly authProviders: AuthProviderRegistry;
  /** Users' links to platform identities. */
  readonly authLinks: AuthLinkStore;
}
