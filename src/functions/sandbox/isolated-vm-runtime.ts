import { createRequire } from 'node:module';
import { configError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { FunctionLogs } from '../function-logs.js';
import type { FunctionRuntime, RuntimeInvocation } from '../runtime.js';
import { type IsolatedVm, IsolatedVmSandbox } from './isolated-vm-sandbox.js';
import { inlineRuntime, runInline } from './quickjs-runtimes.js';

export interface IsolatedVmRuntimeOptions {
  readonly logs: FunctionLogs;
  readonly logger: Logger;
  /** The module (tests); default: `isolated-vm` as installed beside this package. */
  readonly isolatedVm?: IsolatedVm;
}

/** Node.js 20 and later crash when isolated-vm makes an isolate in a process started from Node's snapshot. */
export function startedWithoutNodeSnapshot(execArgv: readonly string[] = process.execArgv, nodeOptions = process.env['NODE_OPTIONS'] ?? ''): boolean {
  return execArgv.includes('--no-node-snapshot') || nodeOptions.split(/\s+/).includes('--no-node-snapshot');
}

/**
 * isolated-vm, checked before it is chosen: installed (an optional peer built from source by npm),
 * and the process started with `--no-node-snapshot`. Throws the configuration error saying which is
 * missing.
 */
export function loadIsolatedVm(from: string = import.meta.url): IsolatedVm {
  if (!startedWithoutNodeSnapshot()) {
    throw configError('functions', "deployed.inline: 'isolated-vm' needs Node.js started with --no-node-snapshot (node --no-node-snapshot server.js): isolated-vm crashes the process without it (docs/functions.md)");
  }
  let mod: unknown;
  try {
    mod = createRequire(from)('isolated-vm');
  } catch (cause) {
    const error = configError('functions', "deployed.inline: 'isolated-vm' needs the optional peer dependency isolated-vm (npm install isolated-vm@5: docs/functions.md)");
    error.cause = cause;
    throw error;
  }
  const ivm = mod as Partial<IsolatedVm> | null;
  if (typeof ivm?.Isolate !== 'function' || typeof ivm.Callback !== 'function') throw configError('functions', 'isolated-vm loaded but exports no Isolate and Callback');
  return ivm as IsolatedVm;
}

/** True when `deployed.inline: 'isolated-vm'` can be chosen in this process (installed, and the flag given). */
export function isolatedVmAvailable(): boolean {
  try {
    loadIsolatedVm();
    return true;
  } catch {
    return false;
  }
}

/**
 * Deployed JavaScript on the main thread in a V8 isolate (isolated-vm), for a warm invocation that
 * is over at once (D216): the same rule as QuickJS inline, at V8's speed. Anything else is declined
 * unseen, for the QuickJS workers to run. Chosen with `deployed.inline: 'isolated-vm'`.
 */
export function isolatedVmRuntime(options: IsolatedVmRuntimeOptions): FunctionRuntime {
  const ivm = options.isolatedVm ?? loadIsolatedVm();
  let sandbox: IsolatedVmSandbox | null = new IsolatedVmSandbox(ivm, options.logger);
  const invokeNow = (invocation: RuntimeInvocation) => runInline(sandbox, invocation, options.logs);
  return inlineRuntime('isolated-vm-inline', invokeNow, () => {
    sandbox?.dispose();
    sandbox = null;
  });
}
