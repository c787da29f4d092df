import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { lowerChildProcess } from '../../core/background-priority.js';
import type { Logger } from '../../core/logger.js';
import type { Json } from '../../core/wire-values.js';
import type { CompiledJava } from './java-build.js';
import { type FromJava, FrameReader, type JavaRequest, encodeFrame } from './java-protocol.js';

/** What the host does with one invocation's frames. */
export interface JavaInvocation {
  call(module: string, method: string, args: Json[]): Promise<Json>;
  log(level: string, text: string): void;
  send(reply: Extract<FromJava, { t: 'send' }>): void;
  /** The function's method returned (sent or not) or threw (`error`). */
  finished(error?: string): void;
  /** The worker stopped before the invocation finished. */
  stopped(reason: string): void;
  /** Acting on one of its frames failed here (a reply that cannot be sent): the invocation fails with it. */
  refused(error: unknown): void;
}

export interface JavaWorkerOptions {
  readonly java: string;
  readonly apiDir: string;
  readonly functionsRoot: string;
  /** Heap of the JVM in MiB (default 128). */
  readonly heapMb: number;
  /** Niceness of the JVM's threads once it is ready (background-priority.ts). */
  readonly niceness: number;
  readonly logger: Logger;
}

/** A coded answer of a failed host call, as the Java side turns it into an HttpResponse. */
export interface CallFailure {
  readonly code: number;
  readonly error: string;
  readonly status: number;
}

/**
 * One JVM worker process (java/src/svcbase/worker/Main.java), long-lived: invocations are frames
 * in, replies and module calls frames out. When the process exits, every invocation still running
 * on it is told (`stopped`); the owner starts a new worker for the next call.
 */
export class JavaWorker {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly running = new Map<number, JavaInvocation>();
  private nextId = 0;
  private stderrTail = '';
  private exitReason: string | null = null;
  readonly ready: Promise<void>;

  constructor(
    private readonly options: JavaWorkerOptions,
    private readonly failure: (error: unknown) => CallFailure,
  ) {
    const args = [
      `-Xmx${options.heapMb}m`,
      '-Xss1m',
      '-XX:+UseSerialGC',
      '-XX:TieredStopAtLevel=1',
      '-XX:+ExitOnOutOfMemoryError',
      // No threads in the JDK's common pool: work handed to it from a function never runs.
      '-Djava.util.concurrent.ForkJoinPool.common.parallelism=0',
      '-Djava.security.manager=allow',
      '-cp',
      options.apiDir,
      'svcbase.worker.Main',
      options.functionsRoot,
    ];
    this.child = spawn(options.java, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const reader = new FrameReader();
    let markReady: () => void = () => undefined;
    let failReady: (error: Error) => void = () => undefined;
    this.ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      failReady = reject;
    });
    this.ready.catch(() => undefined);
    this.child.stdout.on('data', (chunk: Buffer) => {
      let frames: FromJava[];
      try {
        frames = reader.push(chunk);
      } catch (error) {
        this.kill(String(error));
        return;
      }
      for (const frame of frames) {
        if (frame.t === 'ready') {
          // Its threads exist now: a busy function yields the cores to the event loop (background-priority.ts).
          lowerChildProcess(this.child.pid, this.options.niceness);
          markReady();
        } else if (frame.t === 'recycle') {
          this.options.logger.warn('functions: a Java worker is replaced', { reason: frame.reason });
          this.kill(frame.reason);
        } else this.onFrame(frame);
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    this.child.stdin.on('error', () => undefined);
    this.child.on('error', (error) => this.onExit(`could not start java: ${error.message}`, failReady));
    this.child.on('exit', (code, signal) => this.onExit(this.exitReason ?? `the JVM exited (${signal ?? `code ${String(code)}`})${this.lastError()}`, failReady));
  }

  get alive(): boolean {
    return this.exitReason === null;
  }

  /** Invocations in flight. */
  get busy(): number {
    return this.running.size;
  }

  invoke(compiled: CompiledJava, request: JavaRequest, invocation: JavaInvocation): void {
    if (!this.alive) {
      invocation.stopped(this.exitReason ?? 'the worker stopped');
      return;
    }
    const id = ++this.nextId;
    this.running.set(id, invocation);
    this.child.stdin.write(encodeFrame({ t: 'invoke', id, dir: compiled.dir, cls: compiled.className, lineOffset: compiled.lineOffset, request }));
  }

  /** Stops the JVM at once (a deadline passed, or the service closes); running invocations are told why. */
  kill(reason: string): void {
    if (this.exitReason === null) this.exitReason = reason;
    this.child.kill('SIGKILL');
  }

  private lastError(): string {
    const line = this.stderrTail
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('WARNING'))
      .pop();
    return line ? `: ${line.slice(0, 300)}` : '';
  }

  private onExit(reason: string, failReady: (error: Error) => void): void {
    this.exitReason ??= reason;
    failReady(new Error(reason));
    const stopped = [...this.running.values()];
    this.running.clear();
    for (const invocation of stopped) invocation.stopped(this.exitReason);
    if (this.stderrTail.trim()) this.options.logger.debug('java worker stderr', { tail: this.stderrTail.slice(-1000) });
  }

  /** Acts on one invocation's frame; a failure doing so fails that invocation, never the process. */
  private onFrame(frame: Exclude<FromJava, { t: 'ready' | 'recycle' }>): void {
    const invocation = this.running.get(frame.id);
    if (!invocation) return;
    try {
      this.act(frame, invocation);
    } catch (error) {
      this.running.delete(frame.id);
      invocation.refused(error);
    }
  }

  private act(frame: Exclude<FromJava, { t: 'ready' | 'recycle' }>, invocation: JavaInvocation): void {
    switch (frame.t) {
      case 'call':
        // Every call is answered, even one that throws before returning its promise: the Java side waits for it.
        Promise.resolve()
          .then(() => invocation.call(frame.module, frame.method, frame.args))
          .then(
          (value) => this.answer({ t: 'answer', id: frame.id, call: frame.call, ok: true, value }),
          (error: unknown) => this.answer({ t: 'answer', id: frame.id, call: frame.call, ok: false, ...this.failure(error) }),
        );
        break;
      case 'log':
        invocation.log(frame.level, frame.text);
        break;
      case 'send':
        invocation.send(frame);
        break;
      case 'end':
        this.running.delete(frame.id);
        invocation.finished();
        break;
      case 'fail':
        this.running.delete(frame.id);
        invocation.finished(frame.error);
        break;
    }
  }

  private answer(frame: Parameters<typeof encodeFrame>[0]): void {
    if (this.alive && this.running.has(frame.id)) this.child.stdin.write(encodeFrame(frame));
  }
}
