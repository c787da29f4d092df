import { describe, expect, it } from 'vitest';
import { StoredSecret, secretsEqual } from '../../src/core/secrets.js';

describe('StoredSecret', () => {
  const key = 'k3Y-rest_0123456789abcdefABCDEF';

  it('matches exactly the secret, whatever the candidate', () => {
    const stored = new StoredSecret(key);
    expect(stored.matches(key)).toBe(true);
    expect(stored.matches(`${key}`.slice(0, -1) + 'G')).toBe(false);
    // Prefixes, extensions and a candidate equal to the secret followed by NULs (read past the secret: zeros in its table).
    expect(stored.matches(key.slice(0, -1))).toBe(false);
    expect(stored.matches(`${key}x`)).toBe(false);
    expect(stored.matches(`${key}\u0000`)).toBe(false);
    expect(stored.matches('')).toBe(false);
    expect(stored.matches(key.toUpperCase())).toBe(false);
    // Past the table's size (64 code units): the wrapped reads still make no match.
    expect(stored.matches(key.repeat(5))).toBe(false);
    expect(stored.matches(`${key}${'\u0000'.repeat(200)}`)).toBe(false);
  });

  it('compares UTF-16 code units, long secrets and the empty secret exactly', () => {
    const unicode = new StoredSecret('clé-🔑');
    expect(unicode.matches('clé-🔑')).toBe(true);
    expect(unicode.matches('cle-🔑')).toBe(false);
    expect(unicode.matches('clé-\ud83d')).toBe(false);
    const long = 'x'.repeat(100) + 'y';
    expect(new StoredSecret(long).matches(long)).toBe(true);
    expect(new StoredSecret(long).matches('x'.repeat(101))).toBe(false);
    expect(new StoredSecret('').matches('')).toBe(true);
    expect(new StoredSecret('').matches('\u0000')).toBe(false);
  });

  it('agrees with === on every pair of a generated set, lone surrogates included (fixed seed)', () => {
    let seed = 41;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const alphabet = 'ab\u0000é🔑Z';
    const text = () => Array.from({ length: Math.floor(random() * 6) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
    const samples = Array.from({ length: 60 }, text);
    for (const secret of samples) {
      const stored = new StoredSecret(secret);
      for (const candidate of samples) {
        const pair = `${JSON.stringify(secret)} ${JSON.stringify(candidate)}`;
        expect(stored.matches(candidate), pair).toBe(candidate === secret);
        expect(secretsEqual(candidate, secret), pair).toBe(candidate === secret);
      }
    }
    // Hashed as UTF-8, every lone surrogate would become U+FFFD and these two would compare equal.
    expect([secretsEqual('\ud83d', '\udd11'), secretsEqual('\ud83d', '\ud83d'), new StoredSecret('\udd11').matches('\ud83d')]).toEqual([false, true, false]);
  });
});
