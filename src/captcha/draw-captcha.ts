import type { CanvasContextShape } from './canvas-module.js';
import type { DrawRandom } from './random-draw.js';

/**
 * Paints a captcha on a 2D context: light background, faint curves and dots behind, then each glyph
 * with its own face, size, colour, rotation, skew and offset, then thin curves and specks across
 * the text. Everything random comes from `r`.
 */
export function drawCaptcha(
  g: CanvasContextShape,
  text: string,
  width: number,
  height: number,
  r: DrawRandom,
  families: readonly string[],
): void {
  g.fillStyle = r.colour([20, 60], [91, 97]);
  g.fillRect(0, 0, width, height);
  const area = width * height;
  drawDots(g, width, height, r, Math.round(area / 45), [1, 2.5], [55, 80]);
  for (let i = 0, n = r.intIn(2, 3); i < n; i++) drawCurve(g, width, height, r, 1, [55, 75], 0.8);
  drawGlyphs(g, text, width, height, r, families);
  const strokeWidth = Math.max(1.1, height / 40);
  for (let i = 0, n = r.intIn(1, 2); i < n; i++) drawCurve(g, width, height, r, strokeWidth, [25, 45], 0.9);
  drawDots(g, width, height, r, Math.round(area / 180), [1, 2], [25, 50]);
}

function drawGlyphs(
  g: CanvasContextShape,
  text: string,
  width: number,
  height: number,
  r: DrawRandom,
  families: readonly string[],
): void {
  const glyphs = [...text];
  const slot = width / (glyphs.length + 0.7);
  // Narrow slots squeeze glyphs horizontally rather than shrinking them: tall glyphs stay legible.
  const squeeze = Math.min(1, Math.max(0.72, (slot * 1.2) / (height * 0.8)));
  const base = Math.min(height * 0.8, (slot * 1.2) / squeeze);
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  // Each glyph's size is a scale of one base font: setting `font` (a CSS string Skia parses) only
  // when the face changes halves the cost of drawing the text.
  const basePx = `${base.toFixed(1)}px "`;
  let font = '';
  glyphs.forEach((glyph, i) => {
    const scale = r.range(0.85, 1.05);
    const x = slot * (i + 0.85) + r.range(-0.1, 0.1) * slot;
    const spareY = Math.max(0, (height - base * scale) / 2);
    const y = height / 2 + r.range(-0.7, 0.7) * spareY;
    const wanted = `${basePx}${families[r.intIn(0, families.length - 1)] as string}"`;
    // Outside save/restore, so the face stays set for the next glyph.
    if (wanted !== font) g.font = font = wanted;
    g.save();
    g.translate(x, y);
    g.rotate(r.range(-0.42, 0.42));
    g.transform(squeeze * scale, 0, r.range(-0.25, 0.25) * scale, scale, 0, 0);
    g.fillStyle = r.colour([45, 85], [18, 38]);
    g.fillText(glyph, 0, 0);
    g.restore();
  });
}

function drawCurve(
  g: CanvasContextShape,
  width: number,
  height: number,
  r: DrawRandom,
  lineWidth: number,
  lightness: readonly [number, number],
  alpha: number,
): void {
  g.save();
  g.globalAlpha = alpha;
  g.strokeStyle = r.colour([35, 75], lightness);
  g.lineWidth = lineWidth;
  g.lineCap = 'round';
  g.beginPath();
  g.moveTo(r.range(0, width * 0.15), r.range(height * 0.2, height * 0.8));
  g.bezierCurveTo(
    r.range(width * 0.2, width * 0.45), r.range(-height * 0.2, height * 1.2),
    r.range(width * 0.55, width * 0.8), r.range(-height * 0.2, height * 1.2),
    r.range(width * 0.85, width), r.range(height * 0.2, height * 0.8),
  );
  g.stroke();
  g.restore();
}

/** Specks (small squares) in a few colours: few style changes keep drawing cheap and the PNG small. */
function drawDots(
  g: CanvasContextShape,
  width: number,
  height: number,
  r: DrawRandom,
  count: number,
  size: readonly [number, number],
  lightness: readonly [number, number],
): void {
  const colours = Math.min(count, 4);
  for (let c = 0; c < colours; c++) {
    g.fillStyle = r.colour([30, 80], lightness);
    // One path per colour, filled once: far cheaper than a fillRect per speck.
    g.beginPath();
    for (let i = c; i < count; i += colours) {
      const side = r.range(size[0], size[1]);
      g.rect(r.range(0, width), r.range(0, height), side, side);
    }
    g.fill();
  }
}
