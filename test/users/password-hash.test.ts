import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/random.js';
import { DEFAULT_SCRYPT_PARAMS, scryptHasher } from '../../src/users/password-hash.js';

const FAST = { N: 1024, r: 8, p: 1 };

describe('scrypt password hashing', () => {
  it('stores scrypt$N$r$p$salt$hash with a 16-byte salt and a 32-byte key (default parameters)', async () => {
    const hasher = scryptHasher(seededRandom(1));
    const stored = await hasher.hash('correct horse');
    expect(stored).toMatch(/^scrypt\$32768\$8\$3\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(DEFAULT_SCRYPT_PARAMS).toEqual({ N: 32768, r: 8, p: 3 });
    expect(await hasher.verify('correct horse', stored)).toBe(true);
    expect(await hasher.verify('correct horsE', stored)).toBe(false);
  });

  it('salts every hash', async () => {
    const hasher = scryptHasher(seededRandom(2), FAST);
    const a = await hasher.hash('pw');
    const b = await hasher.hash('pw');
    expect(a).not.toBe(b);
    expect(await hasher.verify('pw', a)).toBe(true);
    expect(await hasher.verify('pw', b)).toBe(true);
  });

  it('verifies hashes made with other parameters and says they need a rehash', async () => {
    const old = await scryptHasher(seededRandom(3), FAST).hash('pw');
    const current = scryptHasher(seededRandom(4), { N: 2048, r: 8, p: 1 });
    expect(await current.verify('pw', old)).toBe(true);
    expect(current.needsRehash(old)).toBe(true);
    expect(current.needsRehash(await current.hash('pw'))).toBe(false);
  });

  it('treats malformed stored values as a mismatch, never an error', async () => {
    const hasher = scryptHasher(seededRandom(5), FAST);
    for (const stored of ['', 'pw', 'scrypt$3$8$1$00$00', 'scrypt$1024$8$1$zz$zz', 'bcrypt$2b$10$abc', 'scrypt$1024$8$1$00$0011']) {
      expect(await hasher.verify('pw', stored)).toBe(false);
    }
    await hasher.verifyDummy('pw');
  });

  it('normalises Unicode (NFC) so composed and decomposed input match', async () => {
    const hasher = scryptHasher(seededRandom(6), FAST);
    const stored = await hasher.hash('caf\u00e9');
    expect(await hasher.verify('cafe\u0301', stored)).toBe(true);
  });

  it('refuses invalid parameters as a configuration error', () => {
    expect(() => scryptHasher(seededRandom(7), { N: 1000, r: 8, p: 1 })).toThrow(/\[svcbase\] \[users\]/);
    expect(() => scryptHasher(seededRandom(7), { N: 1024, r: 0, p: 1 })).toThrow(/\[svcbase\] \[users\]/);
  });
});
