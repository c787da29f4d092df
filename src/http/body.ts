import { svcError } from '../core/errors.js';
import { FORBIDDEN_KEYS } from '../core/names.js';
import type { Json } from '../core/wire-values.js';

export interface BodyLimits {
  /** Largest accepted body in bytes. */
  readonly maxBytes: number;
  /** Deepest accepted nesting of arrays/objects. */
  readonly maxDepth: number;
}

import type { JsonObject } from '../core/wire-values.js';
export type { JsonObject };

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes UTF-8 bytes; invalid sequences are a 107. */
export function bodyText(body: Uint8Array | null): string {
  if (!body || body.length === 0) return '';
  try {
    return decoder.decode(body);
  } catch {
    throw svcError('invalidJson', 'body is not valid UTF-8');
  }
}

/** True for `application/json` with any parameters (charset). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return type === 'application/json';
}

/**
 * Parses a JSON request body into an object. An empty body is `{}`; a body without a JSON content
 * type is a 107 (the hosted service's rule); a top-level non-object, a forbidden key (`__proto__`,
 * `constructor`, `prototype`) anywhere, or nesting beyond `maxDepth` is refused before anything runs.
 */
export function parseJsonBody(body: Uint8Array | null, contentType: string | undefined, limits: BodyLimits): JsonObject {
  if (body && body.length > limits.maxBytes) throw svcError('bodyTooLarge', limits.maxBytes);
  const text = bodyText(body);
  if (text.trim() === '') return {};
  if (!isJsonContentType(contentType)) throw svcError('unsupportedContentType', contentType ?? 'none');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw svcError('invalidJson', (error as Error).message.slice(0, 200));
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw svcError('invalidJson', 'the body must be a JSON object');
  }
  checkJsonTree(parsed, limits.maxDepth);
  return parsed as JsonObject;
}

/** Walks a parsed JSON tree once: refuses forbidden keys and excessive depth. */
export function checkJsonTree(root: unknown, maxDepth: number): void {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) throw svcError('bodyTooDeep', maxDepth);
    if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'object' && item !== null) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw svcError('forbiddenKey', key);
      const child = (value as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
}

/** Parses an `application/x-www-form-urlencoded` body into string fields (last value wins). */
export function parseFormBody(body: Uint8Array | null, limits: BodyLimits): JsonObject {
  if (body && body.length > limits.maxBytes) throw svcError('bodyTooLarge', limits.maxBytes);
  const out: JsonObject = {};
  for (const [key, value] of new URLSearchParams(bodyText(body))) {
    if (FORBIDDEN_KEYS.has(key)) throw svcError('forbiddenKey', key);
    out[key] = value;
  }
  return out;
}
