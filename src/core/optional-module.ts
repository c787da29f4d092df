import { createRequire } from 'node:module';

const cache = new Map<string, unknown>();

/** Loads an optional peer dependency once; undefined when it is not installed. */
export function loadOptional(id: string): unknown {
  if (cache.has(id)) return cache.get(id);
  let mod: unknown;
  try {
    mod = createRequire(import.meta.url)(id);
  } catch {
    mod = undefined;
  }
  cache.set(id, mod);
  return mod;
}
