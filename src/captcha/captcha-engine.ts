import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { KvStore } from '../kv/port.js';
import { generateCaptchaText } from './alphabet.js';
import type { CaptchaParams } from './captcha-params.js';
import { decodeCaptchaRecord, encodeCaptchaRecord } from './captcha-record.js';
import type { CaptchaSecrets } from './captcha-secrets.js';
import { CAPTCHA_TOKEN_LENGTH, VALIDATE_TOKEN_LENGTH, captchaKey, digestsEqual, isTokenShape, newToken, validateTokenKey } from './captcha-tokens.js';
import type { CaptchaRenderer } from './renderer.js';

/** What the captcha engine needs: the store port, time, randomness and a renderer. */
export interface CaptchaEngineDeps {
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly renderer: CaptchaRenderer;
  /** Keys store entries, answers and images (see `createCaptchaSecrets`). */
  readonly secrets: CaptchaSecrets;
  /** Lifetime of a validate_token in milliseconds. */
  readonly validateTokenTtlMs: number;
}

/** A captcha just issued. */
export interface IssuedCaptcha {
  readonly token: string;
  /** Epoch milliseconds after which the token is unknown. */
  readonly expiresAt: number;
}

/**
 * The image-captcha flow over a KvStore, every secret bound to its application and kept keyed
 * (tokens as HMACs, answers as keyed digests, images sealed; see `createCaptchaSecrets`):
 * issue (render once, store digest + PNG) -> image (same PNG while the token lives) -> verify (one
 * guess: the token is taken atomically whatever the outcome) -> validate_token (single use).
 */
export interface CaptchaEngine {
  issue(app: Application, params: CaptchaParams): Promise<IssuedCaptcha>;
  /** The PNG of a live captcha; 11010 when the token is unknown, used or expired. */
  image(app: Application, token: string): Promise<Uint8Array>;
  /** Consumes the captcha token; returns a validate_token. 11010 unknown/used/expired, 11011 wrong code. */
  verify(app: Application, token: string, code: string): Promise<string>;
  /** Atomically consumes a validate_token; false when unknown, used, expired or of another application. */
  consumeValidateToken(app: Application, token: string): Promise<boolean>;
}

/** Builds the engine. Pure apart from its ports: time from `clock`, randomness from `random`. */
export function createCaptchaEngine(deps: CaptchaEngineDeps): CaptchaEngine {
  const { kv, clock, random, renderer, secrets } = deps;
  const pendingKey = (app: Application, token: string) => captchaKey(app.applicationId, secrets.tokenId(app, 'captcha', token));
  const validatedKey = (app: Application, token: string) => validateTokenKey(app.applicationId, secrets.tokenId(app, 'validate', token));
  return {
    async issue(app, params) {
      const text = generateCaptchaText(random, params.size);
      const png = await renderer.render(text, params.width, params.height, random);
      const now = clock.now();
      const expiresAt = now + params.ttl * 1000;
      for (let attempt = 0; attempt < 3; attempt++) {
        const token = newToken(random, CAPTCHA_TOKEN_LENGTH);
        const record = encodeCaptchaRecord({ answer: secrets.answerDigest(app, token, text), png: secrets.seal(app, token, png) });
        if (await kv.putIfAbsent(pendingKey(app, token), record, expiresAt, now)) return { token, expiresAt };
      }
      throw new Error('[svcbase] [captcha] could not allocate a unique captcha token (is the Random port constant?)');
    },

    async image(app, token) {
      if (!isTokenShape(token, CAPTCHA_TOKEN_LENGTH)) throw svcError('captchaTokenInvalid');
      const stored = await kv.get(pendingKey(app, token), clock.now());
      const record = stored === null ? null : decodeCaptchaRecord(stored);
      const png = record && secrets.open(app, token, record.png);
      if (!png) throw svcError('captchaTokenInvalid');
      return png;
    },

    async verify(app, token, code) {
      if (!isTokenShape(token, CAPTCHA_TOKEN_LENGTH)) throw svcError('captchaTokenInvalid');
      const now = clock.now();
      const stored = await kv.take(pendingKey(app, token), now);
      const record = stored === null ? null : decodeCaptchaRecord(stored);
      if (!record) throw svcError('captchaTokenInvalid');
      if (!digestsEqual(secrets.answerDigest(app, token, code), record.answer)) throw svcError('captchaCodeWrong');
      const validateToken = newToken(random, VALIDATE_TOKEN_LENGTH);
      await kv.put(validatedKey(app, validateToken), '1', now + deps.validateTokenTtlMs);
      return validateToken;
    },

    async consumeValidateToken(app, token) {
      if (typeof token !== 'string' || !isTokenShape(token, VALIDATE_TOKEN_LENGTH)) return false;
      return (await kv.take(validatedKey(app, token), clock.now())) !== null;
    },
  };
}
