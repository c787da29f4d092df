import { randomBytes, randomInt } from 'node:crypto';

/** Source of randomness. Engines never call Math.random or crypto directly. */
export interface Random {
  /** `n` uniformly random bytes. */
  bytes(n: number): Uint8Array;
  /** A uniformly random integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
}

/** Cryptographic randomness from node:crypto: use this in production. */
export const cryptoRandom: Random = {
  bytes: (n) => randomBytes(n),
  int: (maxExclusive) => randomInt(maxExclusive),
};

/**
 * Deterministic randomness (sfc32) for tests and reproducible captcha images. Not for secrets.
 *
 * @example const random = seededRandom(42);
 */
export function seededRandom(seed: number): Random {
  let a = 0x9e3779b9 ^ seed;
  let b = 0x243f6a88 ^ (seed * 31);
  let c = 0xb7e15162;
  let d = seed >>> 0;
  const next = (): number => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return {
    bytes(n) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
    int(maxExclusive) {
      return Math.floor(next() * maxExclusive);
    },
  };
}

const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A random string over `alphabet` without modulo bias. */
export function randomString(random: Random, length: number, alphabet: string = ALNUM): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[random.int(alphabet.length)];
  return out;
}

/** Lowercase hex of `byteCount` random bytes. */
export function randomHex(random: Random, byteCount: number): string {
  return Buffer.from(random.bytes(byteCount)).toString('hex');
}
