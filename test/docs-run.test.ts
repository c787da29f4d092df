import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type DocBlock, typescriptBlocks } from './helpers/doc-blocks.js';

/**
 * fix 39.5: doc examples that only type-checked (test/docs-typecheck.test.ts) now run: a block that
 * throws at start, or servers that never listen, fail here. Blocks run as written, against the
 * sources (`svcbase` aliased as vitest.config.ts does, or through a tsconfig `paths` for tsx).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const work = join(root, 'test-artifacts/doc-run');
mkdirSync(work, { recursive: true });
const blocks = typescriptBlocks(root);

/** The block of `file` whose code contains `marker` (exactly one). */
function block(file: string, marker: string): DocBlock {
  const found = blocks.filter((b) => b.where.startsWith(`${file}:`) && b.code.includes(marker));
  expect(found.map((b) => b.where), `${file}: one block with '${marker}'`).toHaveLength(1);
  return found[0]!;
}

/** Writes a block as a module; `tail` runs after it (closing what it opened). */
function moduleOf(name: string, code: string, tail = ''): string {
  const file = join(work, `${name}.ts`);
  writeFileSync(file, `${code}\n${tail}\nexport {};\n`);
  return file;
}

describe('docs examples run', () => {
  it("docs/users.md's first example starts (email verification with the service's publicUrl)", async () => {
    const example = block('docs/users.md', "import { createService, smtpMailTransport");
    const file = moduleOf('users-first', example.code, 'await service.close();');
    await expect(import(pathToFileURL(file).href)).resolves.toBeDefined();
  });

  it("docs/wechat.md's testing example runs (in vitest, as the page says)", async () => {
    const example = block('docs/wechat.md', 'startFakeWechatPlatform');
    expect(readFileSync(join(root, 'docs/wechat.md'), 'utf8')).toMatch(/svcbase\/testing[^.]*imports vitest/);
    const file = moduleOf('wechat-testing', example.code);
    await expect(import(pathToFileURL(file).href)).resolves.toBeDefined();
  });

  describe("docs/mounting.md's upgrade example", () => {
    let child: ChildProcess | undefined;
    afterAll(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child!.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    });

    it('listens with node:http, Express, Fastify and Hono, and each echoes over a WebSocket', async () => {
      const example = block('docs/mounting.md', 'const echo: FeatureFactory');
      const file = moduleOf('mounting-upgrade', example.code);
      // tsx runs the block with `svcbase` mapped to the sources.
      const tsconfig = join(work, 'tsconfig.json');
      writeFileSync(tsconfig, JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', paths: { svcbase: [join(root, 'src/index.ts')], 'svcbase/*': [join(root, 'src/*.ts')] } } }));
      const port = await freePorts(4);
      let output = '';
      child = spawn(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), '--tsconfig', tsconfig, file], { cwd: work, env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      child.once('exit', (code) => code !== null && code !== 0 && process.stderr.write(`[docs-run] the mounting example exited ${code}:\n${output}\n`));
      for (let i = 0; i < 4; i++) {
        const host = `${['node:http', 'Express', 'Fastify', 'Hono'][i]} on ${port + i}`;
        await expect.poll(() => echo(`ws://127.0.0.1:${port + i}/api/1/echo`), { timeout: 20_000, interval: 200, message: host }).toBe('hello');
      }
    });
  });

  it('no table in README.md or docs/ lists a row twice (the same first two cells)', () => {
    const repeated: string[] = [];
    // docs/errors.md is generated from the code table, where several names share one code and status.
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md') && f !== 'errors.md').map((f) => `docs/${f}`)];
    for (const name of pages) {
      let rows = new Set<string>();
      for (const [i, line] of readFileSync(join(root, name), 'utf8').split('\n').entries()) {
        if (!line.startsWith('|')) {
          rows = new Set();
          continue;
        }
        const cells = line.split('|').slice(1, 3).map((cell) => cell.trim());
        if (/^-+$/.test(cells[0]!.replace(/:/g, ''))) continue;
        const key = cells.join(' | ');
        if (rows.has(key)) repeated.push(`${name}:${i + 1}: ${key}`);
        rows.add(key);
      }
    }
    expect(repeated).toEqual([]);
  });
});

/** `hello` echoed by the WebSocket at `url` (with the example's keys), or the error met. */
async function echo(url: string): Promise<string> {
  const ws = new WebSocket(url, { headers: { 'X-Svc-Application-Id': 'app', 'X-Svc-REST-API-Key': 'rest' } });
  try {
    return await new Promise<string>((resolve) => {
      ws.once('error', (error) => resolve(`error: ${error.message}`));
      ws.once('open', () => ws.send('hello'));
      ws.once('message', (data) => resolve(String(data)));
    });
  } finally {
    ws.terminate();
  }
}

/** A base port whose next `count - 1` ports are free too. */
async function freePorts(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    let free = true;
    for (let i = 0; i < count && free; i++) free = await canListen(base + i);
    if (free) return base;
  }
  throw new Error('no run of free ports');
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, () => probe.close(() => resolve(true)));
  });
}
