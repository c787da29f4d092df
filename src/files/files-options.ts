import type { Application } from '../app/application.js';
import { configError } from '../core/errors.js';
import type { FileStore } from './file-store.js';
import type { ImageChecker } from './image-check-route.js';
import type { MediaProcessor } from './media-processor.js';

/** Per-application file limits. */
export interface FileLimits {
  /** Largest file in bytes (default 10 MiB, the SDKs' own client-side maximum). */
  readonly maxFileBytes: number;
  /** Total bytes an application may keep stored (default: no quota). */
  readonly quotaBytes?: number;
  /**
   * Allowed content types: exact (`image/png`) or a family (`image/*`). Default: every type. Both the
   * type the name gives and the type the first bytes show must be allowed.
   */
  readonly allowedTypes?: readonly string[];
  /** Most files in one multipart request (default 10). */
  readonly maxFilesPerRequest: number;
}

export const DEFAULT_FILE_LIMITS: FileLimits = { maxFileBytes: 10 * 1024 * 1024, maxFilesPerRequest: 10 };

/** Options of `createFilesFeature` (the service's `files` option). */
export interface FilesOptions {
  /** Where bytes go. Default: `localFileStore({ root: './data/files' })`. */
  readonly store?: FileStore;
  /** Limits for every application, or per application id (missing fields take the defaults). */
  readonly limits?: Partial<FileLimits> | ((app: Application) => Partial<FileLimits>);
  /** The `cdn` value of replies and File columns (default `upyun`, the name the SDK sends back on delete). */
  readonly cdnName?: string;
  /** Extracts video frames (default: ffmpeg through `execFile`; `false` turns snapshots off). */
  readonly media?: MediaProcessor | false;
  /**
   * Largest upload body buffered to check a signature over its bytes (Node SDK strings and Buffers,
   * whose signature covers the data itself; default 10 MiB). Other uploads stream.
   */
  readonly signedBodyLimit?: number;
  /**
   * The public origin and mount prefix for urls of files stored through the files API. Default: the
   * application's `publicUrl` (the service's), else '' (`/files/...`, relative to the mount).
   */
  readonly baseUrl?: string;
  /** The platform's image check (issue 20's mini-program client); without it checkImg answers 403/11152. */
  readonly imageChecker?: ImageChecker;
}

/** The limits that apply to `app`, defaults filled, checked. */
export function limitsFor(options: FilesOptions, app: Application): FileLimits {
  const given = typeof options.limits === 'function' ? options.limits(app) : (options.limits ?? {});
  const limits = { ...DEFAULT_FILE_LIMITS, ...given };
  if (!Number.isSafeInteger(limits.maxFileBytes) || limits.maxFileBytes < 1) throw configError('files', 'limits.maxFileBytes must be a positive integer');
  if (limits.quotaBytes !== undefined && (!Number.isSafeInteger(limits.quotaBytes) || limits.quotaBytes < 0)) {
    throw configError('files', 'limits.quotaBytes must be a non-negative integer');
  }
  if (!Number.isSafeInteger(limits.maxFilesPerRequest) || limits.maxFilesPerRequest < 1) {
    throw configError('files', 'limits.maxFilesPerRequest must be a positive integer');
  }
  return limits;
}

/** Whether `type` (bare media type) is in `allowed` (exact or `family/*`); no list allows all. */
export function typeAllowed(type: string, allowed: readonly string[] | undefined): boolean {
  if (!allowed) return true;
  return allowed.some((entry) => {
    const want = entry.toLowerCase();
    return want.endsWith('/*') ? type.startsWith(want.slice(0, -1)) : type === want;
  });
}
