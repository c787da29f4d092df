import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { svcError } from '../../core/errors.js';
import type { JavaToolchain } from './java-toolchain.js';

/** A compiled function: its class directory and class name, as the JVM worker loads it. */
export interface CompiledJava {
  readonly dir: string;
  readonly className: string;
  /** Lines of the generated class before the function's first line (stack traces are reported on the function's lines). */
  readonly lineOffset: number;
}

/** Lines the wrapper puts before the function's own first line (errors are reported on the function's lines). */
const WRAPPER_LINES = 4;

function wrap(className: string, source: string): string {
  return ['import java.util.*;', 'import org.json.*;', 'import svcbase.cloud.*;', `public final class ${className} extends FunctionBase {`, source, '}', ''].join('\n');
}

interface Run {
  readonly code: number | null;
  readonly output: string;
}

function run(program: string, args: readonly string[], timeoutMs: number): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

async function javaFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await javaFiles(path)));
    else if (entry.name.endsWith('.java')) out.push(path);
  }
  return out.sort();
}

/** Moves a finished build into place; another process may have put the same one there first. */
async function publish(tmp: string, dir: string): Promise<void> {
  try {
    await rename(tmp, dir);
  } catch (error) {
    await rm(tmp, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
}

/**
 * Compiles Java with the JDK's javac into a cache directory (default `<tmp>/svcbase-java-<uid>`): the API
 * and worker (java/src) once per version of their sources, each function once per version of its
 * source. Builds land in a temporary directory and are renamed into place, so processes sharing the
 * cache never see half a build.
 */
export class JavaBuild {
  private api: Promise<{ dir: string; hash: string }> | null = null;
  private readonly functions = new Map<string, Promise<CompiledJava>>();

  constructor(
    private readonly toolchain: JavaToolchain,
    private readonly sourceRoot: string,
    readonly cacheDir: string,
  ) {}

  /** Where function classes live: the worker runs code from here with no permissions. */
  get functionsRoot(): string {
    return join(this.cacheDir, 'fn');
  }

  /** The compiled API and worker classes (built on first use). */
  apiClasses(): Promise<{ dir: string; hash: string }> {
    this.api ??= this.safeCache()
      .then(() => this.buildApi())
      .catch((error: unknown) => {
      this.api = null;
      throw error;
    });
    return this.api;
  }

  /** Compiles a function's source (already checked by java-rules.ts); javac's errors answer 322 with the function's line numbers. */
  compile(name: string, source: string): Promise<CompiledJava> {
    const key = createHash('sha256').update(source).digest('hex');
    let pending = this.functions.get(key);
    if (!pending) {
      pending = this.buildFunction(name, source, key);
      this.functions.set(key, pending);
      pending.catch(() => this.functions.delete(key));
      if (this.functions.size > 1000) this.functions.delete(this.functions.keys().next().value!);
    }
    return pending;
  }

  /**
   * The cache holds classes the worker runs (the API's with every permission), so it must be this
   * user's alone: created 0700, and refused when it is someone else's or others may write to it (a
   * shared temporary directory where another local user planted classes).
   */
  private async safeCache(): Promise<void> {
    await mkdir(this.cacheDir, { recursive: true, mode: 0o700 });
    const info = await lstat(this.cacheDir);
    const uid = typeof process.getuid === 'function' ? process.getuid() : null;
    if (!info.isDirectory() || (uid !== null && info.uid !== uid) || (info.mode & 0o022) !== 0) {
      throw svcError('javaUnavailable', `the class cache ${this.cacheDir} must be a directory of this user that others cannot write to`);
    }
  }

  private async buildApi(): Promise<{ dir: string; hash: string }> {
    const files = await javaFiles(this.sourceRoot);
    const hash = createHash('sha256');
    for (const file of files) hash.update(relative(this.sourceRoot, file)).update('\0').update(await readFile(file)).update('\0');
    const digest = hash.digest('hex').slice(0, 24);
    const dir = join(this.cacheDir, `api-${digest}`);
    if (existsSync(dir)) return { dir, hash: digest };
    const tmp = `${dir}.tmp-${randomBytes(6).toString('hex')}`;
    await mkdir(tmp, { recursive: true });
    const result = await run(this.toolchain.javac, ['-encoding', 'UTF-8', '-nowarn', '-proc:none', '-Xlint:none', '-d', tmp, ...files], 120_000);
    if (result.code !== 0) {
      await rm(tmp, { recursive: true, force: true });
      throw svcError('javaUnavailable', `javac could not build the Java API: ${result.output.slice(0, 500)}`);
    }
    await publish(tmp, dir);
    return { dir, hash: digest };
  }

  private async buildFunction(name: string, source: string, sourceHash: string): Promise<CompiledJava> {
    const api = await this.apiClasses();
    const hash = createHash('sha256').update(api.hash).update('\0').update(sourceHash).digest('hex').slice(0, 32);
    const className = `SvcFn_${hash}`;
    const dir = join(this.functionsRoot, hash);
    if (existsSync(dir)) return { dir, className, lineOffset: WRAPPER_LINES };
    const tmp = join(this.cacheDir, `build-${randomBytes(6).toString('hex')}`);
    const out = join(tmp, 'classes');
    await mkdir(out, { recursive: true });
    try {
      const file = join(tmp, `${className}.java`);
      await writeFile(file, wrap(className, source));
      const result = await run(this.toolchain.javac, ['-encoding', 'UTF-8', '-nowarn', '-proc:none', '-Xlint:none', '-cp', api.dir, '-d', out, file], 60_000);
      if (result.code !== 0) throw svcError('javaUpdateFailed', compileErrors(result.output, className, name));
      await mkdir(this.functionsRoot, { recursive: true });
      await publish(out, dir);
      return { dir, className, lineOffset: WRAPPER_LINES };
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}

/** javac's report with the wrapper's file name and lines turned into the function's. */
export function compileErrors(output: string, className: string, name: string): string {
  const lines = output.split('\n');
  const out: string[] = [];
  for (const line of lines) {
    const at = new RegExp(`^.*${className}\\.java:(\\d+): (error|warning): (.*)$`).exec(line);
    if (at) out.push(`${name} line ${Math.max(1, Number(at[1]) - WRAPPER_LINES)}: ${at[3]}`);
    else if (/^\d+ errors?$/.test(line.trim())) out.push(line.trim());
    else if (out.length > 0 && line.trim() !== '') out.push(`  ${line.trim()}`);
  }
  const text = out.join('\n') || output.trim();
  return text.length > 2000 ? `${text.slice(0, 2000)}...` : text;
}
