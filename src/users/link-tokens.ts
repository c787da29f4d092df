import type { Clock } from '../core/clock.js';
import { type Random, randomHex } from '../core/random.js';
import { sha256Hex } from '../core/secrets.js';
import type { KvStore } from '../kv/port.js';

/** What a mailed link stands for. */
export type LinkKind = 'verify' | 'reset';

/** The payload of a link: the application, the user and the address the link was mailed to. */
export interface LinkPayload {
  readonly applicationId: string;
  readonly userId: string;
  readonly email: string;
}

/** Bytes of randomness in a link token (64 hex characters in the URL). */
export const LINK_TOKEN_BYTES = 32;
const TOKEN = /^[0-9a-f]{64}$/;

/** Single-use, expiring link tokens, stored hashed in the KvStore. */
export interface LinkTokens {
  /** A new token valid for `ttlMs`. Only its SHA-256 is stored. */
  issue(kind: LinkKind, payload: LinkPayload, ttlMs: number): Promise<string>;
  /** The payload while the token is live, without using it up (the reset form's GET). */
  peek(kind: LinkKind, token: string): Promise<LinkPayload | null>;
  /** Uses the token up: of concurrent callers exactly one gets the payload. */
  consume(kind: LinkKind, token: string): Promise<LinkPayload | null>;
}

/**
 * Link tokens in the KvStore under `users:link:<kind>:<sha256(token)>`. A token names its
 * application itself, so links need no other parameter. They survive restarts when the KvStore does
 * (`sqliteKvStore`, Redis); with the default memory store they end with the process.
 */
export function createLinkTokens(deps: { kv: KvStore; clock: Clock; random: Random }): LinkTokens {
  const { kv, clock, random } = deps;
  const key = (kind: LinkKind, token: string) => `users:link:${kind}:${sha256Hex(token)}`;
  return {
    async issue(kind, payload, ttlMs) {
      const token = randomHex(random, LINK_TOKEN_BYTES);
      await kv.put(key(kind, token), JSON.stringify(payload), clock.now() + ttlMs);
      return token;
    },
    async peek(kind, token) {
      if (!TOKEN.test(token)) return null;
      return parse(await kv.get(key(kind, token), clock.now()));
    },
    async consume(kind, token) {
      if (!TOKEN.test(token)) return null;
      return parse(await kv.take(key(kind, token), clock.now()));
    },
  };
}

function parse(text: string | null): LinkPayload | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as Partial<LinkPayload>;
    return typeof v.applicationId === 'string' && typeof v.userId === 'string' && typeof v.email === 'string'
      ? { applicationId: v.applicationId, userId: v.userId, email: v.email }
      : null;
  } catch {
    return null;
  }
}
