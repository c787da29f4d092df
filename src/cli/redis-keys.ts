/** The few ioredis calls the carry-over makes, typed by shape. */
export interface RedisScanLike {
  scan(cursor: string, match: 'MATCH', pattern: string, count: 'COUNT', n: number): Promise<[string, string[]]>;
  /** Redis 6.2+ `COPY source destination`: 1 when copied, 0 when the destination exists (it is kept). */
  copy(source: string, destination: string): Promise<number>;
  set(key: string, value: string): Promise<unknown>;
  exists(key: string): Promise<number>;
}

/** Where the quick start keeps an application's keys: the prefix, then the application id. */
export function applicationPrefix(prefix: string, applicationId: string): string {
  return `${prefix}${encodeURIComponent(applicationId)}:`;
}

/** The stores' key families under a prefix (the event bus holds no keys, only channels). */
const FAMILIES = ['kv:', 'rate:'] as const;

/**
 * Copies the keys an earlier version wrote without the application id (`<prefix>kv:…`,
 * `<prefix>rate:…`) to `<prefix><applicationId>:kv:…` once: SMS codes and ids, limits and cached
 * tokens written before stay readable. COPY keeps each key's TTL and never overwrites a key the
 * new layout already has; a marker key makes later starts skip the scan. Returns the keys copied.
 */
export async function carryUnscopedKeys(redis: RedisScanLike, prefix: string, applicationId: string): Promise<number> {
  const scoped = applicationPrefix(prefix, applicationId);
  // An application named after a family (`kv`, `rate`) already lives where the old keys are.
  if ((FAMILIES as readonly string[]).includes(`${encodeURIComponent(applicationId)}:`)) return 0;
  const marker = `${scoped}carried`;
  if ((await redis.exists(marker)) === 1) return 0;
  let copied = 0;
  for (const family of FAMILIES) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(prefix + family)}*`, 'COUNT', 500);
      for (const key of keys) copied += await redis.copy(key, scoped + key.slice(prefix.length));
      cursor = next;
    } while (cursor !== '0');
  }
  await redis.set(marker, String(copied));
  return copied;
}

/** A literal for a Redis MATCH pattern. */
function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
