import { hash, timingSafeEqual } from 'node:crypto';

/**
 * SHA-256 of a string's UTF-16 code units in one call (`crypto.hash`, Node 20.12+). Not of its
 * UTF-8: that turns every lone surrogate into U+FFFD, so two different strings would hash alike.
 */
function sha256(text: string): Buffer {
  return hash('sha256', Buffer.from(text, 'utf16le'), 'buffer');
}

/**
 * Compares two secrets in time independent of where they differ (and of their lengths): both are
 * hashed to 32 bytes first, then compared with `timingSafeEqual`. For the keys checked on every
 * request, {@link StoredSecret} is cheaper.
 */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(sha256(a), sha256(b));
}

/**
 * A secret fixed at start-up (an application's REST and master keys), compared with a candidate on
 * every request in time that depends on the candidate's length only. Hashing both with SHA-256
 * (as {@link secretsEqual} does) took 6-9% of a GET's CPU on the test machine; here every code unit
 * of the candidate is XOR-ed with the secret's (kept in a zero-padded table of a power-of-two size,
 * read at `i & mask`: no branch, division or out-of-range read depends on the secret), and the
 * differences OR-ed with the lengths' XOR, so neither where they differ nor the secret's length
 * shows (docs/decisions.md, D214).
 */
export class StoredSecret {
  private readonly codes: Uint16Array;
  private readonly mask: number;
  private readonly length: number;

  constructor(secret: string) {
    let size = 64;
    while (size < secret.length) size *= 2;
    this.codes = new Uint16Array(size);
    for (let i = 0; i < secret.length; i++) this.codes[i] = secret.charCodeAt(i);
    this.mask = size - 1;
    this.length = secret.length;
  }

  matches(candidate: string): boolean {
    const codes = this.codes;
    const mask = this.mask;
    const n = candidate.length;
    let diff = n ^ this.length;
    for (let i = 0; i < n; i++) diff |= candidate.charCodeAt(i) ^ codes[i & mask]!;
    return diff === 0;
  }
}

/** SHA-256 hex of a secret, for storing tokens and codes without keeping them. */
export function sha256Hex(text: string): string {
  return hash('sha256', text, 'hex');
}
