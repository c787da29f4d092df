import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { configError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { normalizeCaptchaAnswer } from './alphabet.js';

/** Shortest accepted captcha secret, in bytes. */
export const MIN_CAPTCHA_SECRET_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What the captcha keeps in the KvStore is keyed by one secret: store keys are HMACs of the tokens
 * (a captcha_token or validate_token never appears in the store), the answer is an HMAC of token
 * and answer (guessing it from the store needs the secret), and the image is sealed with AES-256-GCM
 * under a key derived from the secret and the token. Instances sharing a store must share the secret.
 */
export interface CaptchaSecrets {
  /** The store key part standing for a token: HMAC(secret, purpose + token), hex. */
  tokenId(purpose: 'captcha' | 'validate', token: string): string;
  /** The stored form of an answer: HMAC(secret, token + normalised answer), hex. */
  answerDigest(token: string, answer: string): string;
  /** Seals the PNG for this token: base64 of iv, tag and ciphertext. */
  seal(token: string, png: Uint8Array): string;
  /** Opens a sealed PNG; null when it was sealed for another token or secret. */
  open(token: string, sealed: string): Uint8Array | null;
}

/**
 * Captcha secrets from `secret` (at least 16 bytes; a string is taken as UTF-8), or 32 bytes of
 * `random` when none is given: then only this process can verify its captchas.
 */
export function createCaptchaSecrets(random: Random, secret?: string | Uint8Array): CaptchaSecrets {
  const key = secret === undefined ? Buffer.from(random.bytes(32)) : Buffer.from(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
  if (key.length < MIN_CAPTCHA_SECRET_BYTES) throw configError('captcha', `secret must be at least ${MIN_CAPTCHA_SECRET_BYTES} bytes`);
  const mac = (text: string) => createHmac('sha256', key).update(text, 'utf8');
  return {
    tokenId: (purpose, token) => mac(`${purpose}-token:${token}`).digest('hex'),
    answerDigest: (token, answer) => mac(`answer:${token}:${normalizeCaptchaAnswer(answer)}`).digest('hex'),
    seal(token, png) {
      const iv = Buffer.from(random.bytes(IV_BYTES));
      const cipher = createCipheriv('aes-256-gcm', mac(`image:${token}`).digest(), iv);
      const body = Buffer.concat([cipher.update(png), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(token, sealed) {
      const bytes = Buffer.from(sealed, 'base64');
      if (bytes.length < IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', mac(`image:${token}`).digest(), bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]));
      } catch {
        return null;
      }
    },
  };
}
