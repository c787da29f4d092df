import type { FunctionRuntime } from '../runtime.js';
import type { JavaFunctions } from './java-functions.js';

/**
 * Java functions as a runtime: compiled by the JDK's javac (checked against the save rules first)
 * and run in one JVM per application (java-functions.ts). It runs every invocation it is given.
 */
export function javaRuntime(java: JavaFunctions): FunctionRuntime {
  return {
    name: 'java',
    language: 'java',
    check: (name, source) => java.check(name, source),
    async invoke({ caller, fn, request, response, modules, started, deadlineMs }) {
      started();
      await java.functionOf(caller, fn.name, fn.source, deadlineMs)(request, response, modules);
      return 'done';
    },
    close: () => java.close(),
  };
}
