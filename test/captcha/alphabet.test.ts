import { describe, expect, it } from 'vitest';
import { CAPTCHA_SYMBOLS, generateCaptchaText, normalizeCaptchaAnswer } from '../../src/captcha/alphabet.js';
import { seededRandom } from '../../src/core/random.js';

describe('captcha alphabet', () => {
  it('leaves out characters a reader confuses (L is drawn only as a capital)', () => {
    for (const ambiguous of '01oijqgbszvtf') expect(CAPTCHA_SYMBOLS, ambiguous).not.toContain(ambiguous);
    const drawn = new Set(Array.from({ length: 3000 }, (_, i) => generateCaptchaText(seededRandom(i), 6)).join(''));
    for (const ambiguous of '01OoIilLjJQqgGbBSsZzVvTt') {
      if (ambiguous === 'L') expect(drawn.has(ambiguous)).toBe(true);
      else expect(drawn.has(ambiguous), ambiguous).toBe(false);
    }
    expect(new Set(CAPTCHA_SYMBOLS).size).toBe(CAPTCHA_SYMBOLS.length);
    expect(CAPTCHA_SYMBOLS).toBe(CAPTCHA_SYMBOLS.toLowerCase());
  });

  it('draws only symbols of the set, in capitals or an unmistakable lowercase, uniformly enough', () => {
    const random = seededRandom(11);
    const counts = new Map<string, number>();
    const glyphs = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      for (const ch of generateCaptchaText(random, 5)) {
        glyphs.add(ch);
        counts.set(ch.toLowerCase(), (counts.get(ch.toLowerCase()) ?? 0) + 1);
      }
    }
    expect([...counts.keys()].sort().join('')).toBe([...CAPTCHA_SYMBOLS].sort().join(''));
    for (const n of counts.values()) expect(n).toBeGreaterThan(300);
    for (const g of glyphs) if (g !== g.toUpperCase()) expect('aekmny').toContain(g);
    for (const never of 'IJLOdhjlpruwxc') expect(glyphs.has(never) && never !== never.toUpperCase()).toBe(false);
  });

  it('has the requested length', () => {
    for (const size of [3, 4, 5, 6]) expect(generateCaptchaText(seededRandom(size), size)).toHaveLength(size);
  });

  it('normalises answers: trimmed, lowercase', () => {
    expect(normalizeCaptchaAnswer('  K7eP\t')).toBe('k7ep');
  });
});
