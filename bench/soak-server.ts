/**
 * The soak group's server: the quick start as users run it (`node bin/svcbase.mjs serve`) in a child
 * process on a temporary SQLite file and an ephemeral port, with the hostile functions in its
 * functions folder and a second application (SVC_EXTRA_APPS) for the well-behaved client; and its
 * resident set size read from /proc/<pid>/status (worker threads included: they are the same process).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the folder holding bin/svcbase.mjs above this module (bench/ or bench/.build/). */
export function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'bin', 'svcbase.mjs'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('bin/svcbase.mjs not found above bench/');
}

export interface QuickStart {
  readonly child: ChildProcess;
  readonly url: string;
  /** Whether the process is still running. */
  alive(): boolean;
  /** The last lines it wrote to stderr (diagnostics when it dies). */
  stderrTail(): string;
  /** SIGTERM (graceful), SIGKILL after `graceMs`; resolves with the exit code or signal. */
  stop(graceMs?: number): Promise<string>;
}

/** Starts the quick start and resolves once its banner (printed after the functions folder deployed) is out. */
export async function startQuickStart(options: { dbFile: string; functionsDir: string; env: Record<string, string> }): Promise<QuickStart> {
  const root = repositoryRoot();
  // SVC_SOAK_NODE_ARGS: extra node flags for the server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it.
  const nodeArgs = (process.env.SVC_SOAK_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'bin', 'svcbase.mjs'), 'serve', '--port', '0', '--db', options.dbFile, '--functions', options.functionsDir], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exit: string | undefined;
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve((exit = String(signal ?? code)))));
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  let banner = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the quick start did not print its banner within 90 s: ${banner.slice(0, 500)} ${stderr}`)), 90_000);
    const onData = (chunk: Buffer) => {
      banner += chunk.toString();
      const found = /svcbase listening on (http:\/\/[^\s]+)[\s\S]*Admin console/.exec(banner);
      if (!found) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      // The access log goes on: keep reading it, or a full pipe would block the server.
      child.stdout!.resume();
      resolve(found[1]!);
    };
    child.stdout!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the quick start exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    child,
    url,
    alive: () => exit === undefined,
    stderrTail: () => stderr,
    async stop(graceMs = 15_000) {
      if (exit !== undefined) return exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** VmRSS of a process in MiB (NaN once it is gone). */
export function rssMiB(pid: number): number {
  try {
    const found = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return found ? Number(found[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples a process's RSS every `everyMs` until stopped: the peak, and the value at given moments. */
export class RssSampler {
  private peakMiB = 0;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly pid: number) {}

  start(everyMs = 200): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  /** The highest RSS seen since `start` (or the last `resetPeak`), MiB. */
  peak(): number {
    return this.peakMiB;
  }

  resetPeak(): void {
    this.peakMiB = 0;
    this.sample();
  }

  now(): number {
    return rssMiB(this.pid);
  }

  private sample(): void {
    const value = rssMiB(this.pid);
    if (value > this.peakMiB) this.peakMiB = value;
  }
}
