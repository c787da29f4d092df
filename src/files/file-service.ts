import type { Application } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { type Random, randomHex } from '../core/random.js';
import type { KvStore } from '../kv/port.js';
import { mediaType, sniffType, typeOfExtension } from './content-type.js';
import type { ByteRange, FileReadStream, FileStore, StoredFileInfo } from './file-store.js';
import { checkFileName, extensionOf, keyFromReference, keyPrefix, newFileKey } from './file-names.js';
import { type FileLimits, type FilesOptions, limitsFor, typeAllowed } from './files-options.js';
import { type QuotaLedger, createQuotaLedger } from './quota-ledger.js';
import { merged } from '../core/copy.js';

/** What an upload answers, and what a File column holds (with `__type: 'File'`). */
export type FileRef = {
  readonly cdn: string;
  readonly filename: string;
  readonly url: string;
};

/** A file as the console's browser lists it. */
export interface ListedFile extends FileRef {
  readonly key: string;
  readonly size: number;
  readonly contentType: string;
  readonly lastModified: number;
}

export interface FileServiceDeps {
  readonly store: FileStore;
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger: Logger;
  readonly options: FilesOptions;
}

/** Bytes looked at to decide a type (the sniffers need at most this many). */
const SNIFF_BYTES = 512;

/**
 * The files service: stores, finds and deletes one application's files. Knows nothing of HTTP; the
 * routes and the typed files API both call it.
 */
export interface FileService {
  /**
   * Stores `body` under a fresh key as `filename` for `app`: checks the name, the type (name and
   * first bytes) against the app's allowed types, the size and the quota as bytes flow, and deletes
   * what it wrote if anything fails. `baseUrl` is where svcbase serves `/files/...` for the reply url.
   */
  put(app: Application, filename: string, body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, baseUrl: string): Promise<FileRef>;
  /** Info of the file `reference` (url, path or key tail) names in `app`, or null. */
  stat(app: Application, reference: string): Promise<StoredFileInfo | null>;
  /** Reads the file `reference` names in `app` (optionally a byte range), or null. */
  open(app: Application, reference: string, range?: ByteRange): Promise<FileReadStream | null>;
  /** Deletes the file `reference` names in `app`; false when there was none. Releases its quota. */
  delete(app: Application, reference: string): Promise<boolean>;
  /** The key `reference` names in `app`, or null when it names no stored-file path at all. */
  keyOf(app: Application, reference: string): string | null;
  /**
   * A page of `app`'s files in key order after `after` (a key from the previous page; `''`: the
   * first), at most `limit`; `next` is the key to continue from, null at the end. 11212 when the
   * store cannot list.
   */
  list(app: Application, after: string, limit: number, baseUrl: string): Promise<{ files: ListedFile[]; next: string | null }>;
  /** The reply for a stored key. */
  refOf(info: StoredFileInfo, baseUrl: string): Promise<FileRef>;
  limits(app: Application): FileLimits;
  readonly quota: QuotaLedger;
}

export function createFileService(deps: FileServiceDeps): FileService {
  const { store, clock, random, options } = deps;
  const quota = createQuotaLedger(deps.kv, store, clock);
  const cdn = options.cdnName ?? 'upyun';
  const refOf = async (info: StoredFileInfo, baseUrl: string): Promise<FileRef> => ({
    cdn,
    filename: info.filename,
    url: store.publicUrl ? await store.publicUrl(info.key) : `${baseUrl}/files/${info.key}`,
  });

  return {
    quota,
    limits: (app) => limitsFor(options, app),
    keyOf: (app, reference) => keyFromReference(app.namespace, reference),
    async list(app, after, limit, baseUrl) {
      if (!store.list) throw svcError('fileListUnsupported', store.name);
      const prefix = keyPrefix(app.namespace);
      // One more than asked tells whether a next page exists.
      const page = await store.list(prefix, after && after.startsWith(prefix) ? after : '', limit + 1);
      const files: ListedFile[] = [];
      for (const info of page.slice(0, limit)) files.push(merged(await refOf(info, baseUrl), { key: info.key, size: info.size, contentType: info.contentType, lastModified: info.lastModified }));
      return { files, next: page.length > limit ? files.at(-1)!.key : null };
    },
    refOf,
    async put(app, filename, body, baseUrl) {
      checkFileName(filename);
      const limits = limitsFor(options, app);
      const ext = extensionOf(filename);
      const { head, rest } = await readHead(body, SNIFF_BYTES);
      // The sniffers look at the first bytes only (a 1 MiB first chunk is not decoded as text whole).
      const contentType = decideType(ext, head.subarray(0, SNIFF_BYTES), limits);
      const key = newFileKey(app.namespace, clock.now(), randomHex(random, 16), ext);
      let size = 0;
      let reserved = 0;
      async function* checked(): AsyncGenerator<Uint8Array> {
        for await (const chunk of prepend(head, rest)) {
          size += chunk.length;
          if (size > limits.maxFileBytes) throw svcError('fileTooLarge', limits.maxFileBytes);
          if (limits.quotaBytes !== undefined && size > reserved) {
            // Exactly the bytes received: reserving ahead would refuse a racing upload that fits.
            await quota.reserve(app, size - reserved, limits.quotaBytes);
            reserved = size;
          }
          yield chunk;
        }
      }
      try {
        const info = await store.put(key, checked(), { contentType, filename });
        if (limits.quotaBytes === undefined) await quota.reserve(app, info.size, Number.MAX_SAFE_INTEGER);
        else await quota.release(app, reserved - info.size);
        return await refOf(info, baseUrl);
      } catch (error) {
        if (reserved > 0) await quota.release(app, reserved).catch((e) => deps.logger.error('[svcbase] [files] quota release failed', { error: String(e) }));
        await store.delete(key).catch(() => false);
        throw error;
      }
    },
    async stat(app, reference) {
      const key = keyFromReference(app.namespace, reference);
      return key ? store.stat(key) : null;
    },
    async open(app, reference, range) {
      const key = keyFromReference(app.namespace, reference);
      return key ? store.get(key, range) : null;
    },
    async delete(app, reference) {
      const key = keyFromReference(app.namespace, reference);
      if (!key) return false;
      const info = await store.stat(key);
      if (!info) return false;
      const deleted = await store.delete(key);
      if (deleted) await quota.release(app, info.size);
      return deleted;
    },
  };
}

/**
 * The stored type: the first bytes' type when they show one (a `.txt` holding HTML is stored as
 * HTML, so it is served as a download), else the name's. Both must be allowed; a name's type that is
 * allowed while the bytes' type is not answers 415/11146.
 */
function decideType(ext: string, head: Uint8Array, limits: FileLimits): string {
  const byName = typeOfExtension(ext);
  const sniffed = sniffType(head);
  const nameType = mediaType(byName);
  if (!typeAllowed(nameType, limits.allowedTypes)) throw svcError('fileTypeNotAllowed', nameType);
  if (sniffed && sniffed !== nameType && !typeAllowed(sniffed, limits.allowedTypes)) {
    throw svcError('fileContentMismatch', sniffed, nameType);
  }
  return sniffed && sniffed !== nameType ? sniffed : byName;
}

async function readHead(
  body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
  want: number,
): Promise<{ head: Uint8Array; rest: AsyncIterator<Uint8Array> }> {
  const iterator = toAsync(body)[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < want) {
    const next = await iterator.next();
    if (next.done) break;
    chunks.push(next.value);
    size += next.value.length;
  }
  // One chunk (a whole small upload) passes as it is: no copy.
  return { head: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), rest: iterator };
}

async function* prepend(head: Uint8Array, rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  if (head.length > 0) yield head;
  for (;;) {
    const next = await rest.next();
    if (next.done) return;
    yield next.value;
  }
}

async function* toAsync(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  yield* body;
}
