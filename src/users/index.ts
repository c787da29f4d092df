/**
 * Users: sign-up, login, sessions, password flows, email verification and the protection of the
 * user table. See docs/users.md.
 */
export { USERS, type UsersFeature, type UsersFeatureOptions, createUsersFeature, usersFeature } from './users-feature.js';
export type { UserSmsCodes, UsersDeps } from './deps.js';
export { type UserLister } from './user-list.js';
export { type UsersService, createUsersService } from './users-service.js';
export type { SignUpResult } from './sign-up.js';
export { type SessionRegistry } from './users-feature.js';
export {
  DEFAULT_SCRYPT_PARAMS,
  MAX_PASSWORD_LENGTH,
  type PasswordHasher,
  SCRYPT_KEY_LENGTH,
  SCRYPT_SALT_LENGTH,
  type ScryptParams,
  scryptHasher,
} from './password-hash.js';
export { type EmailEvent, type EmailTransition, type EmailVerifiedState, emailTransition } from './email-state.js';
export { SESSION_TOKEN_BYTES, type SessionInfo, type SessionStore, endedSessionId } from './session-store.js';
export { LINK_TOKEN_BYTES } from './link-tokens.js';
export { DEFAULT_HASHING_LIMITS, type HashingLimits, gatedHasher } from './hash-gate.js';
export { SESSION_CLASS, USER_CLASS } from './user-table.js';
export { defaultUserPhoneValidator } from './user-fields.js';
export { userClassPolicy } from './user-class-policy.js';
export { type AuthProvider, type VerifiedIdentity } from './auth-providers.js';
