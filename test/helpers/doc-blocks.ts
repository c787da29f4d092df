import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface DocBlock {
  /** e.g. `docs/sms.md:42` (the line of the opening fence). */
  readonly where: string;
  readonly code: string;
}

/** Every ```ts / ```typescript block of README.md and docs/*.md, in file order. */
export function typescriptBlocks(root: string): DocBlock[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
  const blocks: DocBlock[] = [];
  for (const file of files) {
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```(ts|typescript)\s*$/.test(lines[i] as string)) continue;
      const start = i;
      const code: string[] = [];
      for (i++; i < lines.length && !(lines[i] as string).startsWith('```'); i++) code.push(lines[i] as string);
      blocks.push({ where: `${file}:${start + 1}`, code: code.join('\n') });
    }
  }
  return blocks;
}
