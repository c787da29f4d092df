import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import type { Application } from '../app/application.js';
import { configError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import { normalizeCaptchaAnswer } from './alphabet.js';

/** Shortest accepted captcha secret, in bytes. */
export const MIN_CAPTCHA_SECRET_BYTES = 16;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * What the captcha keeps in the KvStore is keyed by a secret: store keys are HMACs of the tokens
 * (a captcha_token or validate_token never appears in the store), the answer is an HMAC of token
 * and answer (guessing it from the store needs the secret), and the image is sealed with AES-256-GCM
 * under a key derived from the secret and the token. Every MAC also binds the application.
 */
export interface CaptchaSecrets {
  /** The store key part standing for a token: HMAC(key, purpose, app, token), hex. */
  tokenId(app: Application, purpose: 'captcha' | 'validate', token: string): string;
  /** The stored form of an answer: HMAC(key, app, token, normalised answer), hex. */
  answerDigest(app: Application, token: string, answer: string): string;
  /** Seals the PNG for this token: base64 of iv, tag and ciphertext. */
  seal(app: Application, token: string, png: Uint8Array): string;
  /** Opens a sealed PNG; null when it was sealed for another token, application or key. */
  open(app: Application, token: string, sealed: string): Uint8Array | null;
}

/**
 * Captcha secrets keyed by `secret` (at least 16 bytes; a string is taken as UTF-8) when given, else
 * by each application's master key, like SMS codes: a per-application secret every instance of
 * the service already shares and that never sits in the store, so instances sharing a store verify
 * each other's captchas and a restart keeps them. Rotating the key voids pending captchas.
 */
export function createCaptchaSecrets(random: Random, secret?: string | Uint8Array): CaptchaSecrets {
  const fixed = secret === undefined ? undefined : Buffer.from(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
  if (fixed && fixed.length < MIN_CAPTCHA_SECRET_BYTES) throw configError('captcha', `secret must be at least ${MIN_CAPTCHA_SECRET_BYTES} bytes`);
  const mac = (app: Application, purpose: string, ...parts: string[]) =>
    createHmac('sha256', fixed ?? app.masterKey).update([`svcbase-captcha-${purpose}`, app.applicationId, ...parts].join('\0'), 'utf8');
  const imageKey = (app: Application, token: string) => mac(app, 'image', token).digest();
  return {
    tokenId: (app, purpose, token) => mac(app, `${purpose}-token`, token).digest('hex'),
    answerDigest: (app, token, answer) => mac(app, 'answer', token, normalizeCaptchaAnswer(answer)).digest('hex'),
    seal(app, token, png) {
      const iv = Buffer.from(random.bytes(IV_BYTES));
      const cipher = createCipheriv('aes-256-gcm', imageKey(app, token), iv);
      const body = Buffer.concat([cipher.update(png), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    },
    open(app, token, sealed) {
      const bytes = Buffer.from(sealed, 'base64');
      if (bytes.length < IV_BYTES + TAG_BYTES) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', imageKey(app, token), bytes.subarray(0, IV_BYTES));
        decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
        return new Uint8Array(Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]));
      } catch {
        return null;
      }
    },
  };
}
