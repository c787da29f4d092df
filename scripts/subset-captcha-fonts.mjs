// Makes the captcha's bundled fonts: the DejaVu Sans Bold and DejaVu Sans Mono Bold glyphs of the
// captcha alphabet (src/captcha/alphabet.ts, both cases), plus the DejaVu licence, in assets/fonts/.
// The full faces are 12 MB; the subset is a few KB. The tools are fetched into a temporary folder
// (pinned versions), so neither is a dependency of svcbase. See docs/decisions.md (D34).
//   node scripts/subset-captcha-fonts.mjs
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TOOLS = ['subset-font@2.9.0', 'dejavu-fonts-ttf@2.37.3'];
const FACES = ['DejaVuSans-Bold.ttf', 'DejaVuSansMono-Bold.ttf'];
const root = new URL('..', import.meta.url).pathname;
const out = join(root, 'assets/fonts');

const alphabetSource = readFileSync(join(root, 'src/captcha/alphabet.ts'), 'utf8');
const symbols = /CAPTCHA_SYMBOLS = '([^']+)'/.exec(alphabetSource)?.[1];
if (!symbols) throw new Error('CAPTCHA_SYMBOLS not found in src/captcha/alphabet.ts');
const glyphs = [...new Set(symbols.toLowerCase() + symbols.toUpperCase())].sort().join('');

const work = mkdtempSync(join(tmpdir(), 'svcbase-fonts-'));
try {
  writeFileSync(join(work, 'package.json'), '{"private":true}');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', ...TOOLS], { cwd: work, stdio: 'inherit' });
  const require = createRequire(join(work, 'package.json'));
  const { default: subsetFont } = await import(require.resolve('subset-font'));
  for (const face of FACES) {
    const source = readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${face}`));
    const subset = await subsetFont(source, glyphs, { targetFormat: 'truetype' });
    writeFileSync(join(out, face), subset);
    process.stdout.write(`${face}: ${source.length} -> ${subset.length} bytes (${glyphs})\n`);
  }
  copyFileSync(require.resolve('dejavu-fonts-ttf/LICENSE'), join(out, 'LICENSE-DejaVu.txt'));
} finally {
  rmSync(work, { recursive: true, force: true });
}
