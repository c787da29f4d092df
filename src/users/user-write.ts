import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { PhoneValidator } from '../sms/index.js';
import { type EmailVerifiedState, emailTransition } from './email-state.js';
import type { PasswordHasher } from './password-hash.js';
import { assertEmail, assertNewPassword, assertUserPhone, assertUsername, emailRequired, isRemoval } from './user-fields.js';
import type { UniqueUserField } from './user-table.js';


/** Fields nobody writes through a user body. */
const NEVER_WRITABLE = new Set(['sessionToken', 'authData']);
/** Fields only the master key writes, and only on update. */
const VERIFICATION_FLAGS = new Set(['emailVerified', 'mobilePhoneVerified']);
const DELETE: Json = { __op: 'Delete' };

/** A user write after the users feature's rules, ready for the generic write parser. */
export interface PreparedUserWrite {
  /** The body to store: password hashed, verification flags set by the state machine. */
  readonly body: JsonObject;
  /** Unique values the write sets (checked before writing, enforced by the unique indexes). */
  readonly unique: Partial<Record<UniqueUserField, string>>;
  /** Where to mail a verification link after the write, or null. */
  readonly mailVerifyTo: string | null;
  readonly passwordChanged: boolean;
}

export interface UserWriteInput {
  readonly app: Application;
  readonly isMaster: boolean;
  /** The stored user for an update; null for a create. */
  readonly current: StoredRecord | null;
  readonly body: JsonObject;
  readonly hasher: PasswordHasher;
  readonly phoneValidator: PhoneValidator;
  /** Sign-up by phone code: no password and no email needed. */
  readonly phoneSignUp?: boolean;
}

/**
 * Applies the user table's rules to a create or update body: username, email and phone checked
 * (username required and never removable; 204 when the application requires an email); the password
 * hashed (scrypt) and never stored in clear; `sessionToken` and `authData` refused (105);
 * `emailVerified`/`mobilePhoneVerified` refused (105) unless the master key updates them; and the
 * `emailVerified` state machine applied (a changed phone number makes `mobilePhoneVerified` missing).
 * Other columns pass through unchanged for the generic parser.
 */
export async function prepareUserWrite(input: UserWriteInput): Promise<PreparedUserWrite> {
  const { app, body, current } = input;
  const creating = current === null;
  const out: Record<string, Json> = {};
  const unique: Partial<Record<UniqueUserField, string>> = {};
  let passwordChanged = false;
  for (const [key, value] of Object.entries(body)) {
    if (NEVER_WRITABLE.has(key)) throw svcError('reservedField', key);
    if (VERIFICATION_FLAGS.has(key)) {
      if (creating || !input.isMaster) throw svcError('reservedField', key);
      if (!isRemoval(value) && typeof value !== 'boolean') throw svcError('typeMismatch', key, 'Boolean', typeof value);
      out[key] = value;
      continue;
    }
    switch (key) {
      case 'username':
        out.username = unique.username = assertUsername(value);
        break;
      case 'password':
        out.password = await input.hasher.hash(assertNewPassword(app, value));
        passwordChanged = true;
        break;
      case 'email':
      case 'mobilePhoneNumber':
        if (isRemoval(value)) {
          if (!creating) out[key] = DELETE;
          break;
        }
        out[key] = unique[key] = key === 'email' ? assertEmail(value) : assertUserPhone(value, input.phoneValidator);
        break;
      default:
        out[key] = value;
    }
  }
  if (creating) {
    if (!input.phoneSignUp) {
      if (out.username === undefined) throw svcError('fieldMissing', 'username');
      if (!passwordChanged) throw svcError('fieldMissing', 'password');
    }
    if (out.email === undefined && emailRequired(app) && !input.phoneSignUp) throw svcError('emailRequired');
  }
  const mailVerifyTo = applyEmailState(app, current, out);
  if (!creating && Object.hasOwn(out, 'mobilePhoneNumber') && out.mobilePhoneNumber !== current.mobilePhoneNumber) {
    if (!Object.hasOwn(out, 'mobilePhoneVerified') && current.mobilePhoneVerified !== undefined) out.mobilePhoneVerified = DELETE;
  }
  return { body: out, unique, mailVerifyTo, passwordChanged };
}

/** Sets `emailVerified` in `out` per the state machine; returns the address to mail, or null. */
function applyEmailState(app: Application, current: StoredRecord | null, out: Record<string, Json>): string | null {
  const enabled = app.settings.features.emailVerification;
  const nextEmail = Object.hasOwn(out, 'email') ? (typeof out.email === 'string' ? out.email : null) : undefined;
  if (current === null) {
    const t = emailTransition({ kind: 'created', email: nextEmail ?? null }, 'missing', enabled);
    if (t.next === false) out.emailVerified = false;
    return t.mailLink ? (nextEmail ?? null) : null;
  }
  if (nextEmail === undefined) return null;
  const previousEmail = typeof current.email === 'string' ? current.email : null;
  const state: EmailVerifiedState = typeof current.emailVerified === 'boolean' ? current.emailVerified : 'missing';
  const t = emailTransition({ kind: 'updated', previousEmail, email: nextEmail }, state, enabled);
  if (Object.hasOwn(out, 'emailVerified')) return null; // the master key set the flag explicitly
  if (t.next === false) out.emailVerified = false;
  else if (t.next === 'missing' && state !== 'missing') out.emailVerified = DELETE;
  return t.mailLink ? nextEmail : null;
}
