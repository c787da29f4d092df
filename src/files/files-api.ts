import type { Caller } from '../app/caller.js';
import type { ByteRange, StoredFileInfo } from './file-store.js';
import type { FileRef, FileService } from './file-service.js';

/** A stored file read whole. */
export interface FileContent {
  readonly info: StoredFileInfo;
  readonly bytes: Uint8Array;
}

/**
 * Files for code inside the service (cloud functions' `oFile`, hosts): the same checks as uploads
 * (name, type, size, quota), always within the caller's application. References are what uploads
 * answer: the url, its path, or `yyyy/mm/dd/<name>`.
 *
 * @example
 * const ref = await service.registry.files!.put(internalCaller(app), 'notes.txt', 'hello');
 * await service.registry.files!.delete(internalCaller(app), ref.url);
 */
export interface FilesApi {
  put(caller: Caller, filename: string, data: Uint8Array | string | AsyncIterable<Uint8Array>): Promise<FileRef>;
  /** The whole file (or a byte range), or null when `reference` names no file of the caller's application. */
  get(caller: Caller, reference: string, range?: ByteRange): Promise<FileContent | null>;
  stat(caller: Caller, reference: string): Promise<StoredFileInfo | null>;
  /** Deletes the file; false when there was none. */
  delete(caller: Caller, reference: string): Promise<boolean>;
}

/**
 * `baseUrl`: the public origin (and mount prefix) for the urls of files put through the API (the
 * files feature's `baseUrl`); unset, the caller's application's `publicUrl`, else urls relative to the mount.
 */
export function createFilesApi(files: FileService, baseUrl: string | undefined): FilesApi {
  return {
    put(caller, filename, data) {
      const body = typeof data === 'string' ? [new TextEncoder().encode(data)] : data instanceof Uint8Array ? [data] : data;
      return files.put(caller.app, filename, body, baseUrl ?? caller.app.publicUrl ?? '');
    },
    async get(caller, reference, range) {
      const read = await files.open(caller.app, reference, range);
      if (!read) return null;
      const chunks: Uint8Array[] = [];
      for await (const chunk of read.body) chunks.push(chunk);
      return { info: read.info, bytes: new Uint8Array(Buffer.concat(chunks)) };
    },
    stat: (caller, reference) => files.stat(caller.app, reference),
    delete: (caller, reference) => files.delete(caller.app, reference),
  };
}
