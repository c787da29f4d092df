import { svcError } from '../../core/errors.js';
import type { Json } from '../../core/wire-values.js';
import { queryError } from './context.js';

/** Deepest JSON nesting accepted in `where` and `having` (objects and arrays). */
export const MAX_JSON_DEPTH = 32;

/**
 * Parses a JSON query parameter (`where`, `having`): refuses texts above `maxBytes` (402), invalid
 * JSON (107), anything but an object (102) and nesting deeper than MAX_JSON_DEPTH (102), so later
 * recursive steps cannot overflow the stack.
 */
export function parseJsonObjectParam(text: string, name: string, maxBytes: number): { [key: string]: Json } {
  if (Buffer.byteLength(text, 'utf8') > maxBytes) throw svcError('whereTooLarge', maxBytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw svcError('invalidJson', `${name}: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw queryError(`${name} must be a JSON object.`);
  }
  assertDepth(value as Json, name);
  return value as { [key: string]: Json };
}

function assertDepth(root: Json, name: string): void {
  const stack: Array<[Json, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_JSON_DEPTH) throw queryError(`${name} is nested deeper than ${MAX_JSON_DEPTH} levels.`);
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
}
