import { scrypt, timingSafeEqual } from 'node:crypto';
import { configError } from '../core/errors.js';
import type { Random } from '../core/random.js';

/** scrypt cost parameters. Memory use is `128 * N * r` bytes per hash. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two (default 2^15). */
  readonly N: number;
  /** Block size (default 8). */
  readonly r: number;
  /** Parallelisation (default 3; Node runs the lanes one after another). */
  readonly p: number;
}

/**
 * Default: N = 2^15, r = 8, p = 3, a 32-byte key and a 16-byte salt: one of the OWASP-recommended
 * scrypt settings (equivalent to N = 2^17, p = 1) at 32 MiB of memory per hash instead of 128 MiB.
 */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = Object.freeze({ N: 2 ** 15, r: 8, p: 3 });

/** Length of the derived key in bytes. */
export const SCRYPT_KEY_LENGTH = 32;
/** Length of the random salt in bytes. */
export const SCRYPT_SALT_LENGTH = 16;
/** Longest password hashed, in characters; longer ones are refused before hashing. */
export const MAX_PASSWORD_LENGTH = 4096;

const FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([0-9a-f]+)\$([0-9a-f]+)$/;

/** Password hashing as the users feature sees it: hash, verify, and whether a hash is outdated. */
export interface PasswordHasher {
  /** `scrypt$N$r$p$<salt hex>$<hash hex>`: parameters travel with the hash. */
  hash(password: string): Promise<string>;
  /** Constant-time comparison of the recomputed hash; false for a malformed stored value. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Burns the time of one verification (unknown users take as long as known ones). */
  verifyDummy(password: string): Promise<void>;
  /** Whether `stored` was made with other parameters than the current ones (rehash after login). */
  needsRehash(stored: string): boolean;
}

/**
 * The scrypt password hasher (node:crypto). Salts come from `random`. Verification reads the
 * parameters stored with each hash, so raising the cost later keeps old hashes valid; callers rehash
 * on the next successful login when {@link PasswordHasher.needsRehash} says so.
 *
 * @example const hasher = scryptHasher(ctx.random); const stored = await hasher.hash('s3cret');
 */
export function scryptHasher(random: Random, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): PasswordHasher {
  assertParams(params);
  const dummySalt = Buffer.from(random.bytes(SCRYPT_SALT_LENGTH));
  return {
    async hash(password) {
      const salt = Buffer.from(random.bytes(SCRYPT_SALT_LENGTH));
      const key = await derive(password, salt, params, SCRYPT_KEY_LENGTH);
      return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('hex')}$${key.toString('hex')}`;
    },
    async verify(password, stored) {
      const parsed = parseStored(stored);
      if (!parsed) return false;
      const key = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
      return timingSafeEqual(key, parsed.hash);
    },
    async verifyDummy(password) {
      await derive(password, dummySalt, params, SCRYPT_KEY_LENGTH);
    },
    needsRehash(stored) {
      const parsed = parseStored(stored);
      return !parsed || parsed.params.N !== params.N || parsed.params.r !== params.r || parsed.params.p !== params.p;
    },
  };
}

function derive(password: string, salt: Buffer, params: ScryptParams, keyLength: number): Promise<Buffer> {
  const maxmem = 256 * params.N * params.r + 1024 * 1024;
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, keyLength, { N: params.N, r: params.r, p: params.p, maxmem }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

function parseStored(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | null {
  const m = FORMAT.exec(stored);
  if (!m) return null;
  const params = { N: Number(m[1]), r: Number(m[2]), p: Number(m[3]) };
  if (!validParams(params) || m[4]!.length % 2 !== 0 || m[5]!.length % 2 !== 0 || m[5]!.length < 32) return null;
  return { params, salt: Buffer.from(m[4]!, 'hex'), hash: Buffer.from(m[5]!, 'hex') };
}

function validParams(p: ScryptParams): boolean {
  const powerOfTwo = Number.isInteger(p.N) && p.N >= 2 && p.N <= 2 ** 22 && (p.N & (p.N - 1)) === 0;
  return powerOfTwo && Number.isInteger(p.r) && p.r >= 1 && p.r <= 32 && Number.isInteger(p.p) && p.p >= 1 && p.p <= 16;
}

function assertParams(params: ScryptParams): void {
  if (!validParams(params)) {
    throw configError('users', `invalid scrypt parameters ${JSON.stringify(params)}: N a power of two up to 2^22, r 1-32, p 1-16`);
  }
}
