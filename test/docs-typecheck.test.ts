import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { typescriptBlocks } from './helpers/doc-blocks.js';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Inside node_modules, so the blocks resolve the repo's packages (better-sqlite3, hono...) as a user's project would. */
const work = join(root, 'node_modules/.cache/svcbase-doc-blocks');

/** Public subpaths (one per build entry, as package.json exports them) mapped to their sources: no build needed. */
async function subpathSources(): Promise<Record<string, string[]>> {
  const { entries } = await import('../tsup.config.js');
  return Object.fromEntries(Object.entries(entries).map(([name, source]) => [name === 'index' ? 'svcbase' : `svcbase/${name}`, [source]]));
}

describe('docs code blocks', () => {
  it('fix 11.8: every TypeScript block of README.md and docs/ type-checks against the public subpaths', async () => {
    const blocks = typescriptBlocks(root);
    expect(blocks.length).toBeGreaterThan(5);
    rmSync(work, { recursive: true, force: true });
    mkdirSync(work, { recursive: true });
    const files = blocks.map((block, i) => {
      const file = join(work, `block-${i}.ts`);
      // Each block is its own module: names do not leak between blocks.
      writeFileSync(file, `${block.code}\nexport {};\n`);
      return file;
    });
    const program = ts.createProgram(files, {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      esModuleInterop: true,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
      lib: ['lib.es2023.d.ts'],
      baseUrl: root,
      paths: await subpathSources(),
    });
    // Only the blocks are checked; the sources they import are checked just as far as the blocks use them.
    const problems = files
      .map((file) => program.getSourceFile(file)!)
      .flatMap((source) => [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)])
      .map((d) => {
        const block = blocks[files.indexOf(d.file!.fileName)]!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${block.where} (+${line + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  });
});
