import type { Random } from '../core/random.js';

/**
 * The 23 answer symbols of a captcha, in their canonical (lowercase) form. Left out because a reader
 * confuses them once glyphs are rotated and crossed by noise: 0/O/o/Q (kept: D); 1/l/I/i/J/j (kept: L,
 * drawn only as a capital); the letters a digit resembles (B/8, G/b/6, g/q/9, S/5, Z/2, T/7), so the
 * digit can stay; V (reads as U); F (a noise line turns it into E). Answers compare case-insensitively,
 * so a symbol may be drawn in either case where both forms are unmistakable (see {@link glyphFor}).
 */
export const CAPTCHA_SYMBOLS = '23456789acdehklmnpruwxy';

/** Symbols whose lowercase glyph is distinct enough to draw; the rest are drawn in capitals. */
const LOWERCASE_DRAWABLE = new Set('aekmny');

/**
 * A random captcha text of `size` glyphs over {@link CAPTCHA_SYMBOLS}, mixing glyph case where the
 * lowercase form cannot be mistaken for another symbol.
 *
 * @example generateCaptchaText(cryptoRandom, 4) // e.g. 'k7eP'
 */
export function generateCaptchaText(random: Random, size: number): string {
  let out = '';
  for (let i = 0; i < size; i++) {
    const symbol = CAPTCHA_SYMBOLS[random.int(CAPTCHA_SYMBOLS.length)] as string;
    out += glyphFor(symbol, random);
  }
  return out;
}

/** The glyph drawn for a symbol: digits as is, letters in capitals or (when safe) lowercase. */
export function glyphFor(symbol: string, random: Random): string {
  if (LOWERCASE_DRAWABLE.has(symbol) && random.int(2) === 0) return symbol;
  return symbol.toUpperCase();
}

/**
 * The comparable form of an answer: surrounding white space removed, lowercase. Users may type any case.
 */
export function normalizeCaptchaAnswer(text: string): string {
  return text.trim().toLowerCase();
}
