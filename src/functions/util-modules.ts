import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { loadOptional } from '../core/optional-module.js';

/** `modules.oEvent` (the hosted service's eventproxy subset): wait for an event a number of times. */
export interface EventModule {
  /** Calls `callback(list)` once `event` was emitted `times` times, with the emitted data in order. */
  after(event: string, times: number, callback: (list: unknown[]) => void): void;
  emit(event: string, data?: unknown): void;
}

/** `modules.oGzip`: `gzip(data)` and `ungzip(buffer)`, promises of Buffers (as the hosted module). */
export interface GzipModule {
  gzip(data: string | Uint8Array): Promise<Buffer>;
  ungzip(data: Uint8Array): Promise<Buffer>;
}

/** `modules.oEncodeing` (the hosted name): `convert(text, toCharset, fromCharset = 'utf8')` → Buffer. */
export interface EncodingModule {
  convert(text: string | Uint8Array, toCharset: string, fromCharset?: string): Buffer;
}

/** `modules.oLog`: a line in the service's log, tagged with the application and the function. */
export interface LogModule {
  log(message: unknown): void;
}

const MAX_WAITERS = 1000;

/** One invocation's event hub: every `after` fires once; at most 1,000 pending waits. */
export function eventModule(): EventModule {
  const waits = new Map<string, Array<{ times: number; seen: unknown[]; callback: (list: unknown[]) => void }>>();
  let pending = 0;
  return {
    after(event, times, callback) {
      if (typeof event !== 'string' || !Number.isSafeInteger(times) || times < 1 || typeof callback !== 'function') {
        throw svcError('invalidParameter', 'oEvent.after(event, times, callback): a name, a positive count and a function');
      }
      if (++pending > MAX_WAITERS) throw svcError('invalidParameter', `oEvent: more than ${MAX_WAITERS} waits`);
      const list = waits.get(event) ?? [];
      list.push({ times, seen: [], callback });
      waits.set(event, list);
    },
    emit(event, data) {
      const list = waits.get(event);
      if (!list) return;
      for (const wait of [...list]) {
        wait.seen.push(data);
        if (wait.seen.length < wait.times) continue;
        list.splice(list.indexOf(wait), 1);
        pending--;
        wait.callback(wait.seen);
      }
      if (list.length === 0) waits.delete(event);
    },
  };
}

const gzipAsync = promisify(gzip);
const gunzipAsync = promisify(gunzip);
/** Largest inflated result of `ungzip` (a small gzip bomb cannot take the host's memory). */
export const MAX_INFLATED = 16 * 1024 * 1024;

export const gzipModule: GzipModule = {
  gzip: (data) => gzipAsync(typeof data === 'string' ? Buffer.from(data) : data),
  ungzip: async (data) => {
    try {
      return await gunzipAsync(data, { maxOutputLength: MAX_INFLATED });
    } catch (error) {
      throw svcError('invalidParameter', `oGzip.ungzip: ${error instanceof Error ? error.message : String(error)}`);
    }
  },
};

/** Charsets Node converts itself; others (GBK, Big5, Shift_JIS) through iconv-lite when it is installed. */
const CHARSETS: Readonly<Record<string, BufferEncoding>> = {
  utf8: 'utf8', 'utf-8': 'utf8', ascii: 'ascii', latin1: 'latin1', 'iso-8859-1': 'latin1', binary: 'latin1',
  utf16le: 'utf16le', 'utf-16le': 'utf16le', ucs2: 'utf16le',
};
/** Byte notations a source may be given in (decoded first, then read as UTF-8); never a target charset. */
const SOURCE_NOTATIONS: Readonly<Record<string, BufferEncoding>> = { base64: 'base64', base64url: 'base64url', hex: 'hex' };

/** The members of iconv-lite used (an optional peer dependency, the library the hosted module wraps). */
export interface IconvLite {
  encodingExists(name: string): boolean;
  decode(bytes: Buffer, charset: string): string;
  encode(text: string, charset: string): Buffer;
}

interface Codec {
  decode(bytes: Buffer): string;
  encode(text: string): Buffer;
}

/** How a charset reads and writes text: Node's own, else iconv-lite's, else 11005 naming the install. */
export function codecFor(name: string, iconv: IconvLite | undefined): Codec {
  const key = String(name).toLowerCase();
  const native = CHARSETS[key];
  if (native) return { decode: (bytes) => bytes.toString(native), encode: (text) => Buffer.from(text, native) };
  if (iconv?.encodingExists(key)) return { decode: (bytes) => iconv.decode(bytes, key), encode: (text) => iconv.encode(text, key) };
  const hint = iconv ? '' : '; other charsets need the optional peer dependency iconv-lite: npm install iconv-lite';
  throw svcError('invalidParameter', `oEncodeing: charset '${String(name).slice(0, 32)}' is not supported here (${Object.keys(CHARSETS).join(', ')}${hint})`);
}

/** `convert(text, toCharset, fromCharset)` with the charset library given (tests pass none). */
export function convertText(text: string | Uint8Array, toCharset: string, fromCharset: string | undefined, iconv: IconvLite | undefined): Buffer {
  const target = codecFor(toCharset, iconv);
  const from = String(fromCharset ?? 'utf8').toLowerCase();
  const notation = SOURCE_NOTATIONS[from];
  if (notation) return target.encode(Buffer.from(typeof text === 'string' ? text : Buffer.from(text).toString('latin1'), notation).toString('utf8'));
  // A string is text already; bytes are read in the source charset.
  return target.encode(typeof text === 'string' ? text : codecFor(from, iconv).decode(Buffer.from(text)));
}

export const encodingModule: EncodingModule = {
  convert: (text, toCharset, fromCharset) => convertText(text, toCharset, fromCharset, loadOptional('iconv-lite') as IconvLite | undefined),
};

export function logModule(logger: Logger, applicationId: string, functionName: string): LogModule {
  return {
    log(message) {
      const text = typeof message === 'string' ? message : JSON.stringify(message) ?? String(message);
      logger.info('cloud function log', { app: applicationId, function: functionName, message: text.slice(0, 4096) });
    },
  };
}
