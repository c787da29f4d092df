import { type FileHandle, mkdir, open, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Writes `body` to a new file at `path` (`wx`: never over an existing one) through one file handle:
 * open, a write per chunk, close, with no stream machinery in between. With `sync`, the bytes reach
 * the disk (`fdatasync`) before it returns. `onChunk` sees every chunk while it is being written.
 * Removes the file when the body or a write fails, then rethrows.
 */
export async function writeNewFile(
  path: string,
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  sync: boolean,
  onChunk: (chunk: Uint8Array) => void = () => {},
): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    for await (const chunk of body) {
      // The write runs on libuv's pool while `onChunk` (hashing) runs here: they overlap.
      const written = chunk.length > 0 ? writeAll(handle, chunk) : undefined;
      onChunk(chunk);
      await written;
    }
    if (sync) await handle.datasync();
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(path, { force: true });
    throw error;
  }
  await handle.close();
}

/** Writes all of `chunk` at the handle's position (a write may take less than asked). */
export async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let at = 0; at < chunk.length; ) at += (await handle.write(chunk, at, chunk.length - at)).bytesWritten;
}

/**
 * The whole of a small file as UTF-8 in one read (open, read, close: a metadata record is far under
 * 4 KiB), falling back to reading on for a larger one. Throws ENOENT like `readFile`.
 */
export async function readSmallFile(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead < buffer.length) return buffer.toString('utf8', 0, bytesRead);
    // A positioned read leaves the file position at 0, so this reads the whole file.
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** Makes a directory sure to last a crash once its entries are (`fsync` of the directory). */
export async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Creates `dir` and its missing parents. With `sync`, each directory created is made lasting by
 * syncing its parent, up to the first one that existed.
 */
export async function makeDirectory(dir: string, sync: boolean): Promise<void> {
  const first = await mkdir(dir, { recursive: true });
  if (!sync || first === undefined) return;
  for (let created = dir; ; created = dirname(created)) {
    await syncDirectory(dirname(created));
    if (created === first) return;
  }
}
