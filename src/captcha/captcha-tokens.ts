import { timingSafeEqual } from 'node:crypto';
import { type Random, randomString } from '../core/random.js';

/** Length of a captcha_token: 20 alphanumerics, like the hosted service (`dtP6cLb3axn0Ho13EvZP`). */
export const CAPTCHA_TOKEN_LENGTH = 20;
/** Length of a validate_token: 32 alphanumerics (about 190 bits). */
export const VALIDATE_TOKEN_LENGTH = 32;

const ALNUM = /^[0-9A-Za-z]+$/;

/** A new random alphanumeric token of `length` characters. */
export function newToken(random: Random, length: number): string {
  return randomString(random, length);
}

/** Whether `token` could have been issued (right length, alphanumeric); anything else is unknown. */
export function isTokenShape(token: string, length: number): boolean {
  return token.length === length && ALNUM.test(token);
}

/** KvStore key of a pending captcha, bound to the application; `tokenId` is the token's HMAC. */
export function captchaKey(applicationId: string, tokenId: string): string {
  return `captcha:${applicationId}:${tokenId}`;
}

/** KvStore key of an unused validate_token, bound to the application; `tokenId` is the token's HMAC. */
export function validateTokenKey(applicationId: string, tokenId: string): string {
  return `captcha-validated:${applicationId}:${tokenId}`;
}

/** Compares two answer digests in constant time. */
export function digestsEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === 32 && bb.length === 32 && timingSafeEqual(ba, bb);
}
