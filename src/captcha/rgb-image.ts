/** An sRGB colour, each channel 0-255. */
export type Rgb = readonly [number, number, number];

/**
 * An opaque image, 3 bytes per pixel (R, G, B), row-major: what a captcha is painted on before it is
 * PNG-encoded. Painting happens in JavaScript on this buffer, so an image costs no native calls.
 */
export interface RgbImage {
  readonly width: number;
  readonly height: number;
  readonly pixels: Uint8Array;
}

export function createRgbImage(width: number, height: number): RgbImage {
  return { width, height, pixels: new Uint8Array(width * height * 3) };
}

export function fillImage(image: RgbImage, [r, g, b]: Rgb): void {
  const p = image.pixels;
  for (let i = 0; i < p.length; i += 3) {
    p[i] = r;
    p[i + 1] = g;
    p[i + 2] = b;
  }
}

/** Paints `colour` over the pixel at byte offset `i` with coverage `a` (0-255), source-over. */
export function blendPixel(p: Uint8Array, i: number, [r, g, b]: Rgb, a: number): void {
  // dst + (src - dst) * a / 255, rounded, in integers: x * 257 / 65536 is x / 255 to within 1/2.
  p[i] = p[i]! + (((r - p[i]!) * a * 257 + 32768) >> 16);
  p[i + 1] = p[i + 1]! + (((g - p[i + 1]!) * a * 257 + 32768) >> 16);
  p[i + 2] = p[i + 2]! + (((b - p[i + 2]!) * a * 257 + 32768) >> 16);
}

/**
 * Fills the axis-aligned square at (`x`, `y`) (fractional, top-left) of side `side` with `colour`,
 * edge pixels by the fraction of them the square covers (anti-aliased, as a canvas fills a rect).
 */
export function fillSquare(image: RgbImage, x: number, y: number, side: number, colour: Rgb): void {
  const x1 = Math.min(image.width, x + side);
  const y1 = Math.min(image.height, y + side);
  for (let py = Math.max(0, Math.floor(y)); py < y1; py++) {
    const coverY = Math.min(y1, py + 1) - Math.max(y, py);
    for (let px = Math.max(0, Math.floor(x)); px < x1; px++) {
      const cover = coverY * (Math.min(x1, px + 1) - Math.max(x, px));
      if (cover > 0) blendPixel(image.pixels, (py * image.width + px) * 3, colour, Math.round(cover * 255));
    }
  }
}

/** The sRGB colour of hue `h` (degrees), saturation `s` and lightness `l` (percent), as CSS `hsl()`. */
export function hslToRgb(h: number, s: number, l: number): Rgb {
  const light = l / 100;
  const a = (s / 100) * Math.min(light, 1 - light);
  return [hslChannel(0, h, light, a), hslChannel(8, h, light, a), hslChannel(4, h, light, a)];
}

function hslChannel(n: number, h: number, light: number, a: number): number {
  const k = (n + h / 30) % 12;
  return Math.round((light - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255);
}
