import { gunzip, gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';

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

/** Charsets Node converts itself; others (GBK, Big5) answer a coded error rather than a wrong result. */
const CHARSETS: Readonly<Record<string, BufferEncoding>> = {
  utf8: 'utf8', 'utf-8': 'utf8', ascii: 'ascii', latin1: 'latin1', 'iso-8859-1': 'latin1', binary: 'latin1',
  utf16le: 'utf16le', 'utf-16le': 'utf16le', ucs2: 'utf16le',
};
/** Byte notations a source may be given in (decoded first); never a target charset. */
const SOURCE_NOTATIONS: Readonly<Record<string, BufferEncoding>> = { base64: 'base64', base64url: 'base64url', hex: 'hex' };

function charset(name: string | undefined, fallback: BufferEncoding, source = false): BufferEncoding {
  if (name === undefined) return fallback;
  const key = String(name).toLowerCase();
  const found = CHARSETS[key] ?? (source ? SOURCE_NOTATIONS[key] : undefined);
  if (!found) throw svcError('invalidParameter', `oEncodeing: charset '${String(name).slice(0, 32)}' is not supported here (${Object.keys(CHARSETS).join(', ')})`);
  return found;
}

export const encodingModule: EncodingModule = {
  convert(text, toCharset, fromCharset) {
    const from = charset(fromCharset, 'utf8', true);
    const source = typeof text === 'string' ? Buffer.from(text, from) : Buffer.from(text);
    const target = charset(toCharset, 'utf8');
    // Bytes in a text charset are read as that charset; base64/hex sources are UTF-8 once decoded.
    const decoded = CHARSETS[String(fromCharset ?? 'utf8').toLowerCase()] ? source.toString(from) : source.toString('utf8');
    return Buffer.from(decoded, target);
  },
};

export function logModule(logger: Logger, applicationId: string, functionName: string): LogModule {
  return {
    log(message) {
      const text = typeof message === 'string' ? message : JSON.stringify(message) ?? String(message);
      logger.info('cloud function log', { app: applicationId, function: functionName, message: text.slice(0, 4096) });
    },
  };
}
