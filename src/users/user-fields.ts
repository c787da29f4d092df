import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import type { PhoneValidator } from '../sms/index.js';
import { MAX_PASSWORD_LENGTH } from './password-hash.js';

/** Longest username and email accepted, in characters. */
export const MAX_NAME_LENGTH = 128;
const EMAIL = /^[^\s@<>()",;:\\[\]]+@[^\s@<>()",;:\\[\]]+\.[^\s@<>()",;:\\[\]]+$/;
const MAINLAND = /^1\d{10}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/** Default phone check of user records: 11-digit mainland numbers or E.164 (`+447700900123`). */
export const defaultUserPhoneValidator: PhoneValidator = (phone) => MAINLAND.test(phone) || E164.test(phone);

/** A username: a non-empty string without surrounding whitespace, at most 128 characters. */
export function assertUsername(value: Json | undefined): string {
  if (value === undefined || value === null || value === '') throw svcError('fieldMissing', 'username');
  if (typeof value !== 'string') throw svcError('typeMismatch', 'username', 'String', typeName(value));
  if (value.length > MAX_NAME_LENGTH || value.trim() !== value) throw svcError('invalidParameter', 'username must be at most 128 characters without surrounding spaces');
  return value;
}

/** An email address (a plain `local@domain.tld` check; the link mailed proves the rest). */
export function assertEmail(value: Json | undefined): string {
  if (typeof value !== 'string') throw svcError('typeMismatch', 'email', 'String', typeName(value ?? null));
  if (value.length > MAX_NAME_LENGTH || !EMAIL.test(value)) throw svcError('invalidParameter', `'${value.slice(0, MAX_NAME_LENGTH)}' is not a valid email address`);
  return value;
}

/** A phone number the validator accepts (301 otherwise). */
export function assertUserPhone(value: Json | undefined, validator: PhoneValidator): string {
  if (typeof value !== 'string' || !validator(value)) throw svcError('invalidPhone', 'mobilePhoneNumber is not a valid phone number');
  return value;
}

/**
 * A new password: 10050 when missing or empty, 10051 when not a string, 11005 when shorter than the
 * application's `users.minPasswordLength` or longer than 4096 characters.
 */
export function assertNewPassword(app: Application, value: Json | undefined): string {
  if (value === undefined || value === null || value === '') throw svcError('newPasswordEmpty');
  if (typeof value !== 'string') throw svcError('newPasswordNotString');
  const min = app.settings.users.minPasswordLength;
  if ([...value].length < min) throw svcError('invalidParameter', `the password must have at least ${min} characters`);
  if (value.length > MAX_PASSWORD_LENGTH) throw svcError('invalidParameter', `the password must have at most ${MAX_PASSWORD_LENGTH} characters`);
  return value;
}

/** Whether the application wants an email at sign-up (`users.requireEmail`). */
export function emailRequired(app: Application): boolean {
  const rule = app.settings.users.requireEmail;
  return rule === 'always' || (rule === 'when-verifying' && app.settings.features.emailVerification);
}

/** `{"__op": "Delete"}` or null: the client removes the value. */
export function isRemoval(value: Json | undefined): boolean {
  return value === null || (typeof value === 'object' && !Array.isArray(value) && value.__op === 'Delete');
}

function typeName(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'Array';
  return typeof value === 'object' ? 'Object' : typeof value === 'number' ? 'Number' : typeof value === 'boolean' ? 'Boolean' : 'String';
}
