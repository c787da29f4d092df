import { svcError } from '../core/errors.js';

/** A request body not read yet: chunks in order, as a host delivers them. */
export type BodySource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/**
 * Yields the chunks of `source` while their total stays within `limit` bytes; a declared length over
 * the limit, or the byte that passes it, throws 413/11002 before the chunk is handed on.
 */
export async function* limitedChunks(source: BodySource, limit: number, declared?: number): AsyncGenerator<Uint8Array> {
  if (declared !== undefined && declared > limit) throw svcError('bodyTooLarge', limit);
  let size = 0;
  for await (const chunk of source) {
    size += chunk.length;
    if (size > limit) throw svcError('bodyTooLarge', limit);
    yield chunk;
  }
}

/** Reads a whole body within `limit` bytes; null when it is empty. */
export async function readLimited(source: BodySource, limit: number, declared?: number): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of limitedChunks(source, limit, declared)) {
    chunks.push(chunk);
    size += chunk.length;
  }
  if (size === 0) return null;
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The `Content-Length` header as a number, or undefined when absent or malformed. */
export function declaredLength(headers: Readonly<Record<string, string | undefined>>): number | undefined {
  const value = headers['content-length'];
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}
