import type { Random } from '../core/random.js';

/**
 * Turns a captcha text into an image. A pure engine: the same text, size and random stream give the
 * same bytes, so a seeded `Random` makes output reproducible.
 *
 * @example const png = await renderer.render('k7eP', 85, 30, cryptoRandom);
 */
export interface CaptchaRenderer {
  /** PNG bytes of `width` x `height` pixels showing `text`. */
  render(text: string, width: number, height: number, random: Random): Uint8Array | Promise<Uint8Array>;
}

/** A renderer that returns the bytes directly (the canvas renderer): handy for benchmarks and scripts. */
export interface SyncCaptchaRenderer extends CaptchaRenderer {
  render(text: string, width: number, height: number, random: Random): Uint8Array;
}
