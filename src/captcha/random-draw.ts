import type { Random } from '../core/random.js';

const TWO_32 = 0x1_0000_0000;

/** Drawing helpers over the Random port: floats, ranges and colours for the captcha renderer. */
export interface DrawRandom {
  /** A float in [0, 1). */
  unit(): number;
  /** A float in [min, max). */
  range(min: number, max: number): number;
  /** An integer in [min, max]. */
  intIn(min: number, max: number): number;
  /** An `hsl()` colour with hue anywhere and saturation/lightness (percent) in the given ranges. */
  colour(saturation: readonly [number, number], lightness: readonly [number, number]): string;
}

export function drawRandom(random: Random): DrawRandom {
  const unit = () => random.int(TWO_32) / TWO_32;
  const range = (min: number, max: number) => min + (max - min) * unit();
  return {
    unit,
    range,
    intIn: (min, max) => min + random.int(max - min + 1),
    colour: (s, l) => `hsl(${Math.floor(range(0, 360))}, ${Math.round(range(s[0], s[1]))}%, ${Math.round(range(l[0], l[1]))}%)`,
  };
}
