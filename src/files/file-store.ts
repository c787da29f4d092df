/** What a store knows about one stored file. */
export interface StoredFileInfo {
  /** The store key, e.g. `app/2026/11/23/<32 hex>.png`. */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** The content type decided at upload (served as `Content-Type`). */
  readonly contentType: string;
  /** The name the client gave the file (for `Content-Disposition`). */
  readonly filename: string;
  /** A strong validator of the bytes (quoted, as sent in `ETag`). */
  readonly etag: string;
  /** When the bytes were stored, epoch ms. */
  readonly lastModified: number;
}

/** Metadata stored with a file's bytes. */
export interface FileMeta {
  readonly contentType: string;
  readonly filename: string;
}

/** An inclusive byte range, as HTTP `Range: bytes=start-end` names it (both ends within the file). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** A file being read: its info and the bytes (the whole file or the asked range). */
export interface FileReadStream {
  readonly info: StoredFileInfo;
  readonly body: AsyncIterable<Uint8Array>;
}

/**
 * Where file bytes live: local disk (`localFileStore`), an S3-compatible bucket (`s3FileStore`) or
 * yours. Keys are chosen by the core (`<namespace>/<yyyy>/<mm>/<dd>/<32 hex>[.ext]`: no user text),
 * so an adapter never sanitises them. Contract (checked by `runFileStoreConformance` from
 * `svcbase/testing`):
 * - `put` consumes `body` fully; a body that throws part-way leaves nothing readable under `key`
 *   (write to a temporary name, then publish), and the error propagates.
 * - `get`/`stat` return null for an unknown key; `get` with a range yields exactly those bytes.
 * - `delete` returns whether something was deleted; deleting twice returns false the second time.
 * - `usage(prefix)` is the total size of the keys starting with `prefix` (quota bookkeeping).
 * - `list(prefix, after, limit)`, when present, returns the files whose keys start with `prefix` and
 *   sort after `after` (`''`: from the first), in key order, at most `limit` (the console's file browser).
 */
export interface FileStore {
  /** Short name for logs and docs (`local`, `s3`). */
  readonly name: string;
  put(key: string, body: AsyncIterable<Uint8Array>, meta: FileMeta): Promise<StoredFileInfo>;
  get(key: string, range?: ByteRange): Promise<FileReadStream | null>;
  stat(key: string): Promise<StoredFileInfo | null>;
  delete(key: string): Promise<boolean>;
  usage(prefix: string): Promise<number>;
  /** A page of files under `prefix`, in key order after `after`. Optional: without it `GET /1/files` answers 11212. */
  list?(prefix: string, after: string, limit: number): Promise<StoredFileInfo[]>;
  /**
   * When set, the url returned to clients for `key` (a public bucket URL, or a presigned URL valid
   * for a while); otherwise svcbase serves the bytes itself at `/files/<key>`.
   */
  publicUrl?(key: string): string | Promise<string>;
  close?(): Promise<void> | void;
}
