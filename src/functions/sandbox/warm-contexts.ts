import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import type { Json } from '../../core/wire-values.js';
import type { SandboxPackages } from '../sandbox-libraries.js';
import { type SandboxHost, type SandboxLimits, SandboxContext } from './quickjs-sandbox.js';
import type { SandboxRequest } from './sandbox-request.js';

/** Idle warm contexts one worker keeps, least recently used dropped first. */
const DEFAULT_CAPACITY = 64;

/** Which deployed function an invocation runs: its warm-context key (null: fresh), version and source. */
export interface SandboxFunction {
  /** The application and the function's name; null runs in a fresh context disposed afterwards. */
  readonly key: string | null;
  /** When this source was deployed: a redeploy starts a new context even for the same text. */
  readonly version: number;
  readonly source: string;
}

function sameLimits(a: SandboxLimits, b: SandboxLimits): boolean {
  return a.memoryBytes === b.memoryBytes && a.cpuTicks === b.cpuTicks && a.stackBytes === b.stackBytes;
}

/**
 * The invocation's host, with `kept` run on idle before the host hears of it. Delegates rather than
 * spreads: `host` may be a class instance, whose methods a spread drops.
 */
class KeptWhenIdle implements SandboxHost {
  constructor(
    private readonly host: SandboxHost,
    private readonly kept: () => void,
  ) {}
  call(module: string, method: string, args: unknown[]): Promise<Json> {
    return this.host.call(module, method, args);
  }
  setHeader(headers: Record<string, string>): void {
    this.host.setHeader(headers);
  }
  log(level: string, message: string): void {
    this.host.log(level, message);
  }
  send(reply: { value: Json; status: number; headers: Record<string, string> }): void {
    this.host.send(reply);
  }
  fail(message: string, cpu: boolean): void {
    this.host.fail(message, cpu);
  }
  permitsSync(kind: string, args: readonly unknown[]): boolean {
    return this.host.permitsSync?.(kind, args) ?? true;
  }
  wentAsync(): void {
    this.host.wentAsync?.();
  }
  shouldStop(fuelLeft: number | null): boolean {
    return this.host.shouldStop?.(fuelLeft) ?? false;
  }
  idle(): void {
    this.kept();
    this.host.idle();
  }
}

/**
 * A worker's idle QuickJS contexts, one per deployed function (its key: the application and the
 * name), so the next invocation of the same deployment skips parsing the prelude and the source. A
 * key never reaches another application's or function's context; a redeploy or changed limits start
 * a new one.
 */
export class WarmContexts {
  private readonly idle = new Map<string, { readonly version: number; readonly context: SandboxContext }>();

  constructor(
    private readonly quickjs: QuickJSWASMModule,
    /** The bundled libraries' sources and iconv-lite (sandbox-libraries.ts). */
    private readonly packages: SandboxPackages,
    private readonly capacity = DEFAULT_CAPACITY,
    /** A cap the measure holds every context to, below the functions' own (the inline sandbox's heap). */
    private readonly measuredCapBytes = Number.POSITIVE_INFINITY,
  ) {}

  /**
   * Starts one invocation of `fn` with `request`; `host.idle()` reports its end. Returns
   * the context it runs in, for a caller that may have to throw the invocation away (`discard`).
   */
  invoke(fn: SandboxFunction, request: SandboxRequest, limits: SandboxLimits, host: SandboxHost): SandboxContext {
    const { key, version, source } = fn;
    let context: SandboxContext | undefined;
    const idle = key === null ? undefined : this.idle.get(key);
    if (idle) {
      this.idle.delete(key!);
      if (idle.version === version && idle.context.source === source && sameLimits(idle.context.limits, limits)) context = idle.context;
      else idle.context.dispose();
    }
    const used = context ?? new SandboxContext(this.quickjs, source, limits, this.packages, this.measuredCapBytes);
    used.invoke(request, new KeptWhenIdle(host, () => {
      if (key !== null && used.reusable) this.keep(key, version, used);
      else used.dispose();
    }));
    return used;
  }

  /** Disposes `context` and forgets it, idle or not: its state reflects an invocation that did not count. */
  discard(key: string | null, context: SandboxContext): void {
    if (key !== null && this.idle.get(key)?.context === context) this.idle.delete(key);
    context.dispose();
  }

  /** Disposes every idle context. */
  clear(): void {
    for (const { context } of this.idle.values()) context.dispose();
    this.idle.clear();
  }

  /** True when `key` has an idle context (an invocation of it would skip parsing the prelude). */
  has(key: string): boolean {
    return this.idle.has(key);
  }

  /** True when an invocation of `fn` under `limits` would run in an idle context, parsing nothing. */
  isWarm(fn: SandboxFunction, limits: SandboxLimits): boolean {
    const idle = fn.key === null ? undefined : this.idle.get(fn.key);
    return idle !== undefined && idle.version === fn.version && idle.context.source === fn.source && sameLimits(idle.context.limits, limits);
  }

  /** Idle contexts held now. */
  get size(): number {
    return this.idle.size;
  }

  private keep(key: string, version: number, context: SandboxContext): void {
    this.idle.set(key, { version, context });
    if (this.idle.size <= this.capacity) return;
    const [oldestKey, oldest] = this.idle.entries().next().value as [string, { readonly context: SandboxContext }];
    this.idle.delete(oldestKey);
    oldest.context.dispose();
  }
}
