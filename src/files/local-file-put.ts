import { createHash } from 'node:crypto';
import { type FileHandle, open, unlink } from 'node:fs/promises';
import type { StoredFileInfo } from './file-store.js';
import { syncDirectory, writeAll, writeNewFile } from './local-file-io.js';
import { merged } from '../core/copy.js';

/** What {@link putLocalFile} needs besides the body. */
export interface LocalPut {
  readonly path: string;
  readonly recordPath: string;
  readonly folder: string;
  readonly sync: boolean;
  /** The record's fields other than size and etag, which come from the bytes. */
  readonly info: Omit<StoredFileInfo, 'size' | 'etag'>;
}

/**
 * Writes a file's bytes, then its metadata record, and returns the record. The record's file is
 * created (empty, which readers take as absent) while the bytes are written, and filled once every
 * byte is: the file becomes readable only then, and the two creations do not wait on each other.
 * With `sync`, the bytes are on disk before the record is filled, and the record and the folder
 * entries before this returns. On failure nothing is left under either name.
 */
export async function putLocalFile(put: LocalPut, body: AsyncIterable<Uint8Array>): Promise<StoredFileInfo> {
  const recordOpening = open(put.recordPath, 'wx');
  recordOpening.catch(() => {}); // awaited below, on every path
  const hash = createHash('sha256');
  let size = 0;
  try {
    await writeNewFile(put.path, body, put.sync, (chunk) => {
      size += chunk.length;
      hash.update(chunk);
    });
  } catch (error) {
    await discardRecord(recordOpening, put.recordPath);
    throw error;
  }
  let record: FileHandle;
  try {
    record = await recordOpening;
  } catch (error) {
    await unlink(put.path).catch(() => {});
    throw error;
  }
  const info: StoredFileInfo = merged(put.info, { size, etag: `"${hash.digest('hex').slice(0, 32)}"` });
  try {
    await writeAll(record, Buffer.from(JSON.stringify(info)));
    if (put.sync) await record.datasync();
    await record.close();
    if (put.sync) await syncDirectory(put.folder);
    return info;
  } catch (error) {
    await record.close().catch(() => {});
    await unlink(put.recordPath).catch(() => {});
    await unlink(put.path).catch(() => {});
    throw error;
  }
}

/** Closes and removes the record file this put created; leaves alone one it failed to create. */
async function discardRecord(opening: Promise<FileHandle>, path: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await opening;
  } catch {
    return;
  }
  await handle.close().catch(() => {});
  await unlink(path).catch(() => {});
}
