import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Application } from '../app/application.js';

/** Turns a verification code into the digest stored in place of the code. */
export interface CodeHasher {
  /** Lowercase hex HMAC-SHA256 of the code, bound to the application. Deterministic. */
  digest(app: Application, code: string): string;
  /** Constant-time comparison of two digests. */
  equals(a: string, b: string): boolean;
}

/**
 * HMAC-SHA256 over `svcbase-sms-code\0<applicationId>\0<code>`, keyed by `key` when given, else by the
 * application's master key (a per-application secret that survives restarts, so codes stored in a
 * persistent KvStore stay verifiable). Rotating the key invalidates live codes. The digest never
 * depends on the phone: `redeemCode` finds a code without one.
 */
export function createCodeHasher(key?: string | Uint8Array): CodeHasher {
  return {
    digest(app, code) {
      return createHmac('sha256', key ?? app.masterKey)
        .update(`svcbase-sms-code\0${app.applicationId}\0${code}`)
        .digest('hex');
    },
    equals(a, b) {
      const x = Buffer.from(a, 'hex');
      const y = Buffer.from(b, 'hex');
      return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
    },
  };
}
