import type { Random } from '../core/random.js';
import { type Rgb, hslToRgb } from './rgb-image.js';

/** Random bytes fetched from the port at a time: one image takes about 1.2 KB (300 draws). */
const BLOCK = 512;
const TWO_32 = 0x1_0000_0000;

/** Drawing helpers over the Random port: floats, ranges and colours for the captcha renderer. */
export interface DrawRandom {
  /** A float in [0, 1). */
  unit(): number;
  /** A float in [min, max). */
  range(min: number, max: number): number;
  /** An integer in [min, max]. */
  intIn(min: number, max: number): number;
  /** A colour with hue anywhere and HSL saturation/lightness (percent) in the given ranges. */
  colour(saturation: readonly [number, number], lightness: readonly [number, number]): Rgb;
}

/**
 * Draws from `random` in blocks of bytes (one port call per 128 draws rather than one per draw: with
 * crypto randomness a call costs more than the pixels a draw places). Each draw is 32 random bits.
 */
export function drawRandom(random: Random): DrawRandom {
  let block: Uint8Array = new Uint8Array(0);
  let at = 0;
  const unit = () => {
    if (at === block.length) {
      block = random.bytes(BLOCK);
      at = 0;
    }
    const bits = (block[at]! << 24) + (block[at + 1]! << 16) + (block[at + 2]! << 8) + block[at + 3]!;
    at += 4;
    return (bits >>> 0) / TWO_32;
  };
  const range = (min: number, max: number) => min + (max - min) * unit();
  return {
    unit,
    range,
    intIn: (min, max) => min + Math.floor(unit() * (max - min + 1)),
    colour: (s, l) => hslToRgb(Math.floor(range(0, 360)), Math.round(range(s[0], s[1])), Math.round(range(l[0], l[1]))),
  };
}
