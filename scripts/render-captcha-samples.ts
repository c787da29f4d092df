/**
 * Writes the sample images shown in docs/captcha.md: `npx tsx scripts/render-captcha-samples.ts`.
 * Seeded, so re-running gives the same files unless the renderer changed. The `skia-*` files beside
 * them are the earlier renderer's (every glyph drawn by Skia), kept for the side-by-side comparison.
 */
import { writeFileSync } from 'node:fs';
import { generateCaptchaText } from '../src/captcha/alphabet.js';
import { createCanvasRenderer } from '../src/captcha/canvas-renderer.js';
import { seededRandom } from '../src/core/random.js';

const SAMPLES = [
  { width: 85, height: 30, size: 4, seed: 2026 },
  { width: 120, height: 40, size: 5, seed: 2027 },
  { width: 200, height: 100, size: 6, seed: 2028 },
] as const;

const renderer = createCanvasRenderer();
for (const { width, height, size, seed } of SAMPLES) {
  const random = seededRandom(seed);
  const text = generateCaptchaText(random, size);
  const file = new URL(`../docs/images/captcha/atlas-${width}x${height}-size${size}.png`, import.meta.url);
  writeFileSync(file, renderer.render(text, width, height, random));
  process.stdout.write(`${file.pathname}: ${text}\n`);
}
