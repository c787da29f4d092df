import { svcError } from '../core/errors.js';

/** Says whether a mobilePhoneNumber is acceptable. Must be pure and fast. */
export type PhoneValidator = (phone: string) => boolean;

const MAINLAND = /^1\d{10}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/** The default: 11-digit mainland China numbers (`13800138000`), as the hosted service accepts. */
export const mainlandPhoneValidator: PhoneValidator = (phone) => MAINLAND.test(phone);

/** International numbers in E.164 form (`+447700900123`): `+`, then 7 to 15 digits. */
export const e164PhoneValidator: PhoneValidator = (phone) => E164.test(phone);

/** Throws 301 unless `phone` is a string the validator accepts. */
export function assertPhone(phone: unknown, validator: PhoneValidator): asserts phone is string {
  if (typeof phone !== 'string' || !validator(phone)) {
    const message = validator === mainlandPhoneValidator
      ? 'mobilePhoneNumber must be an 11-digit number'
      : 'mobilePhoneNumber is not a valid phone number';
    throw svcError('invalidPhone', message);
  }
}
