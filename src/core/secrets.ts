import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets in time independent of where they differ (and of their lengths): both are
 * hashed to 32 bytes first, then compared with `timingSafeEqual`.
 */
export function secretsEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

/**
 * A stored secret, hashed once, that candidates are compared against in constant time: one hash per
 * comparison instead of two (the REST key is checked on every request).
 */
export class SecretDigest {
  private readonly digest: Buffer;
  constructor(secret: string) {
    this.digest = createHash('sha256').update(secret, 'utf8').digest();
  }
  matches(candidate: string): boolean {
    return this.matchesDigest(createHash('sha256').update(candidate, 'utf8').digest());
  }
  /** Compares against a candidate already hashed with SHA-256 (lets one hash serve many secrets). */
  matchesDigest(candidateDigest: Buffer): boolean {
    return timingSafeEqual(this.digest, candidateDigest);
  }
}

/** SHA-256 digest of a candidate secret, for {@link SecretDigest.matchesDigest}. */
export function secretDigestOf(candidate: string): Buffer {
  return createHash('sha256').update(candidate, 'utf8').digest();
}

/** SHA-256 hex of a secret, for storing tokens and codes without keeping them. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
