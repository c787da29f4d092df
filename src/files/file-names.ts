import { svcError } from '../core/errors.js';

/** Longest file name accepted, in UTF-8 bytes. */
export const MAX_FILE_NAME_BYTES = 255;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Characters a file name may not hold: path separators, control characters, bidi overrides. */
const FORBIDDEN = /[\u0000-\u001f\u007f/\\\u202a-\u202e\u2066-\u2069]/u;

/**
 * Checks a client-given file name and returns it unchanged, or throws 400/11143. The name is only
 * ever shown back (reply `filename`, `Content-Disposition`): store keys never contain it, so this
 * guards display and headers, and refuses anything that looks like a path.
 */
export function checkFileName(name: string): string {
  if (name.length === 0) throw svcError('fileNameInvalid', 'empty');
  if (Buffer.byteLength(name, 'utf8') > MAX_FILE_NAME_BYTES) throw svcError('fileNameInvalid', `longer than ${MAX_FILE_NAME_BYTES} bytes`);
  if (FORBIDDEN.test(name)) throw svcError('fileNameInvalid', 'path separators and control characters are not allowed');
  if (name === '.' || name === '..' || name.trim().length === 0) throw svcError('fileNameInvalid', `'${name}'`);
  if (LONE_SURROGATE.test(name)) throw svcError('fileNameInvalid', 'broken Unicode');
  return name;
}

/** The lower-case extension of a name without the dot (`photo.JPG` → `jpg`), or '' when it has none usable. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return '';
  const ext = name.slice(dot + 1).toLowerCase();
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : '';
}

/** Where a stored file's key starts for an application. */
export function keyPrefix(namespace: string): string {
  return `${namespace}/`;
}

/** The date and name part of a key: `yyyy/mm/dd/<32 hex>[.ext]`. */
const KEY_TAIL = /(\d{4})\/(\d{2})\/(\d{2})\/([0-9a-f]{32}(?:\.[a-z0-9]{1,10})?)$/;

/**
 * A fresh key: `<namespace>/<yyyy>/<mm>/<dd>/<32 hex>[.ext]` (UTC date), as the hosted service's CDN
 * paths look. `hex32` comes from the injected Random.
 */
export function newFileKey(namespace: string, now: number, hex32: string, ext: string): string {
  const d = new Date(now);
  const pad = (n: number) => String(n).padStart(2, '0');
  const day = `${d.getUTCFullYear()}/${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}`;
  return `${keyPrefix(namespace)}${day}/${hex32}${ext ? `.${ext}` : ''}`;
}

/**
 * The key an url or path names inside `namespace`, or null. Accepts what clients send back: the full
 * url, its path (`/files/<ns>/2026/11/23/<hex>.png`, with any mount prefix), or the bare
 * `2026/11/23/<hex>.png` (`cdnBatchDelete`). Only the date and name are taken: a path naming another
 * application's namespace still resolves inside the caller's own, so no application reaches another's files.
 */
export function keyFromReference(namespace: string, reference: string): string | null {
  let path = reference.trim();
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(path);
  if (scheme) path = path.slice(scheme[0].length);
  path = path.replace(/[?#].*$/s, '');
  const match = KEY_TAIL.exec(path);
  if (!match) return null;
  return `${keyPrefix(namespace)}${match[1]}/${match[2]}/${match[3]}/${match[4]}`;
}
