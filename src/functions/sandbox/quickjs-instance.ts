import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { svcError } from '../../core/errors.js';
import { FUEL_EXPORT, addFuel } from './wasm-fuel.js';

/** The few parts of the WebAssembly API used here (the compiler's lib has no DOM types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
/** A wasm global as JavaScript sees it. */
export interface WasmGlobal {
  value: number;
}
type WasmModule = object;
interface WasmInstance {
  readonly exports: Record<string, unknown>;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  compile(bytes: Uint8Array): Promise<WasmModule>;
  instantiate(module: WasmModule, imports: object): Promise<WasmInstance>;
}
const Wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** Wasm pages of 64 KiB: QuickJS's build starts at 16 MiB and may grow to 2 GiB. */
const PAGE = 65_536;
const INITIAL_PAGES = 256;
const MAXIMUM_PAGES = 32_768;
/** Room for Emscripten's overgrowth in a growth budget, as a share of the memory's size. */
const OVERGROWTH = 0.15;

/**
 * The growth of one QuickJS instance's wasm memory, held to a budget. The instance's memory is made
 * here and its `grow` refuses to pass the budget: Emscripten's allocator then fails the allocation
 * and QuickJS throws "out of memory". Every byte QuickJS allocates, ArrayBuffer and typed-array
 * backing stores included, lives in this memory, so the budget bounds what an invocation can add to
 * the process, whatever QuickJS's own accounting counts (D131: it counts blocks in this build).
 */
export class HeapGuard {
  private limit = Number.POSITIVE_INFINITY;
  /** A growth past the budget was refused since the last `allow`. */
  refused = false;

  constructor(private readonly memory: WasmMemory) {
    const grow = memory.grow.bind(memory);
    memory.grow = (pages: number): number => {
      if (memory.buffer.byteLength + pages * PAGE > this.limit) {
        this.refused = true;
        throw new RangeError('[svcbase] the sandbox heap may not grow further now');
      }
      return grow(pages);
    };
  }

  /** Bytes of the instance's wasm memory (it grows, never shrinks). */
  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  /**
   * From now on the memory may grow by at most `bytes` more, plus the overgrowth Emscripten asks
   * for (it grows by 5-20% of the memory at a time, never less than 5%).
   */
  allow(bytes: number): void {
    this.limit = this.bytes + bytes + Math.floor(this.bytes * OVERGROWTH);
    this.refused = false;
  }

  /** No budget (between invocations: disposing and measuring never grow the heap). */
  release(): void {
    this.limit = Number.POSITIVE_INFINITY;
  }
}

/** What a QuickJS instance made here carries besides the module: its heap guard, and its fuel when fuelled. */
interface InstanceControls {
  readonly heap: HeapGuard;
  /** The fuel global of a fuelled instance (wasm-fuel.ts): past zero its code traps. */
  readonly fuel: WasmGlobal | null;
}

const controls = new WeakMap<QuickJSWASMModule, InstanceControls>();

/** The heap guard of an instance made by `instantiateQuickJs`, or null for one made elsewhere. */
export function heapGuardOf(quickjs: QuickJSWASMModule): HeapGuard | null {
  return controls.get(quickjs)?.heap ?? null;
}

/** The fuel global of a fuelled instance, or null. */
export function fuelOf(quickjs: QuickJSWASMModule): WasmGlobal | null {
  return controls.get(quickjs)?.fuel ?? null;
}

/**
 * Bytes of a QuickJS instance's wasm memory (it grows, never shrinks), or null when the build does
 * not show its heap.
 */
export function wasmMemoryBytes(quickjs: QuickJSWASMModule): number | null {
  const guard = heapGuardOf(quickjs);
  if (guard) return guard.bytes;
  const heap = (quickjs as unknown as { module?: { HEAP8?: Int8Array } }).module?.HEAP8;
  return heap ? heap.byteLength : null;
}

type Core = typeof import('quickjs-emscripten-core');

/** The fuelled build of the variant's wasm, compiled once per thread. */
let fuelled: Promise<WasmModule> | null = null;

function fuelledModule(require: ReturnType<typeof createRequire>): Promise<WasmModule> {
  fuelled ??= Promise.resolve()
    .then(() => Wasm.compile(addFuel(readFileSync(require.resolve('@jitl/quickjs-wasmfile-release-sync/wasm')))))
    .catch((error: unknown) => {
      fuelled = null;
      throw error;
    });
  return fuelled;
}

/**
 * A new QuickJS instance (a wasm module and heap of its own) from the optional peers
 * quickjs-emscripten-core and @jitl/quickjs-wasmfile-release-sync, resolved from `resolveFrom`, with
 * a heap guard, and fuel when `fuel` (wasm-fuel.ts); rejects with a coded error naming the install
 * when the peers are missing.
 */
export async function instantiateQuickJs(resolveFrom: string, fuel: boolean): Promise<QuickJSWASMModule> {
  const require = createRequire(resolveFrom);
  let core: Core;
  let variant: unknown;
  try {
    core = require('quickjs-emscripten-core') as Core;
    const loaded = require('@jitl/quickjs-wasmfile-release-sync') as { default?: unknown };
    variant = loaded.default ?? loaded;
  } catch (cause) {
    const error = svcError('functionRuntimeMissing', 'run `npm install quickjs-emscripten-core @jitl/quickjs-wasmfile-release-sync`');
    (error as Error).cause = cause;
    throw error;
  }
  const memory = new Wasm.Memory({ initial: INITIAL_PAGES, maximum: MAXIMUM_PAGES });
  const heap = new HeapGuard(memory);
  let fuelGlobal: WasmGlobal | null = null;
  const base = variant as Parameters<Core['newQuickJSWASMModuleFromVariant']>[0] & Parameters<Core['newVariant']>[0];
  let options: Parameters<Core['newVariant']>[1] = { wasmMemory: memory as unknown as NonNullable<Parameters<Core['newVariant']>[1]['wasmMemory']> };
  if (fuel) {
    const module = await fuelledModule(require);
    const instantiateWasm = (imports: object, receive: (instance: WasmInstance, module: WasmModule) => void) => {
      void Wasm.instantiate(module, imports).then((instance) => {
        fuelGlobal = instance.exports[FUEL_EXPORT] as WasmGlobal;
        receive(instance, module);
      });
      return {};
    };
    options = { ...options, emscriptenModule: { instantiateWasm } as unknown as NonNullable<typeof options.emscriptenModule> };
  }
  const quickjs = await core.newQuickJSWASMModuleFromVariant(core.newVariant(base, options));
  if (fuel && !fuelGlobal) throw new Error('[svcbase] the fuelled QuickJS build did not load');
  controls.set(quickjs, { heap, fuel: fuelGlobal });
  return quickjs;
}
