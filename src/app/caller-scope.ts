import { AsyncLocalStorage } from 'node:async_hooks';
import type { Caller } from './caller.js';

/**
 * The caller of the work in progress, carried through async calls: the request handler runs each
 * route inside `runAsCaller`, so code far below it (write hooks) can see who asked without every
 * function passing the caller along. Outside any scope (start-up, timers) there is no caller.
 */
const scope = new AsyncLocalStorage<Caller>();

/** Runs `work` with `caller` as the current caller (nested calls replace it for their duration). */
export function runAsCaller<T>(caller: Caller, work: () => T): T {
  return scope.run(caller, work);
}

/** The caller of the current request or cloud function, or undefined outside one. */
export function currentCaller(): Caller | undefined {
  return scope.getStore();
}
