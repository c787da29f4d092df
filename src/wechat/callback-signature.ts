import { createHash, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { KvStore } from '../kv/port.js';

/** How far a callback's timestamp may be from the clock (seconds). */
const SKEW_SECONDS = 300;

/**
 * Checks a message-push callback of the platform: `signature` = SHA-1 of the sorted, concatenated
 * token, timestamp and nonce; the timestamp within 5 minutes; each nonce accepted once (a replayed
 * callback is refused with 11207).
 */
export async function verifyCallback(
  deps: { readonly kv: KvStore; readonly clock: Clock },
  scope: string,
  token: string,
  query: URLSearchParams,
): Promise<void> {
  const signature = query.get('signature') ?? '';
  const timestamp = query.get('timestamp') ?? '';
  const nonce = query.get('nonce') ?? '';
  if (!/^\d{1,12}$/.test(timestamp) || nonce === '' || nonce.length > 64 || !/^[0-9a-f]{40}$/.test(signature)) {
    throw svcError('platformCallbackRefused', 'signature, timestamp and nonce are required');
  }
  const expected = createHash('sha1').update([token, timestamp, nonce].sort().join('')).digest();
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) throw svcError('platformCallbackRefused', 'bad signature');
  const now = deps.clock.now();
  if (Math.abs(now / 1000 - Number(timestamp)) > SKEW_SECONDS) throw svcError('platformCallbackRefused', 'stale timestamp');
  const fresh = await deps.kv.putIfAbsent(`wechat:nonce:${scope}:${nonce}`, '1', now + 2 * SKEW_SECONDS * 1000, now);
  if (!fresh) throw svcError('platformCallbackRefused', 'replayed nonce');
}

/** The signature a platform callback carries: what the fake platform sends and tests compute. */
export function callbackSignature(token: string, timestamp: string, nonce: string): string {
  return createHash('sha1').update([token, timestamp, nonce].sort().join('')).digest('hex');
}
