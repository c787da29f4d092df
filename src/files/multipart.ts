import { Readable } from 'node:stream';
import { isSvcError as isSvc, svcError } from '../core/errors.js';
import { requireBusboy } from './optional-modules.js';

/** One file part of a multipart body, read in order: its bytes must be consumed before the next part arrives. */
export interface MultipartFile {
  readonly field: string;
  /** The part's own file name (may be empty). */
  readonly filename: string;
  readonly body: AsyncIterable<Uint8Array>;
}

export interface MultipartLimits {
  readonly maxFiles: number;
  /** Per file: busboy stops a part one byte past this, so the store's own size check reports it. */
  readonly maxFileBytes: number;
}

/** Whether a Content-Type names a multipart form. */
export function isMultipart(contentType: string | undefined): boolean {
  return contentType !== undefined && /^multipart\/form-data\s*;/i.test(contentType);
}

/**
 * Parses a multipart/form-data body with busboy, calling `onFile` for each file part in order (the
 * next part waits until the previous file's body is consumed or `onFile` settles) with the fields
 * that came before it. Resolves with the fields and every `onFile` result once the body ends;
 * rejects with the first error (a limit, a malformed body, an `onFile` failure).
 */
export function parseMultipart<T>(
  body: AsyncIterable<Uint8Array>,
  contentType: string,
  limits: MultipartLimits,
  onFile: (file: MultipartFile, fieldsSoFar: ReadonlyMap<string, string>) => Promise<T>,
): Promise<{ fields: Map<string, string>; results: T[] }> {
  return new Promise((resolve, reject) => {
    let parser: ReturnType<ReturnType<typeof requireBusboy>>;
    try {
      parser = requireBusboy()({
        headers: { 'content-type': contentType },
        limits: { files: limits.maxFiles, fileSize: limits.maxFileBytes + 1, fields: 100, fieldSize: 64 * 1024, parts: limits.maxFiles + 100 },
      });
    } catch (error) {
      reject(isSvc(error) ? error : svcError('uploadMalformed', (error as Error).message));
      return;
    }
    const source = Readable.from(body);
    const fields = new Map<string, string>();
    const results: T[] = [];
    let chain: Promise<void> = Promise.resolve();
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      source.destroy();
      parser.removeAllListeners('file');
      reject(error);
    };
    parser.on('field', (name: string, value: string, info: { nameTruncated: boolean; valueTruncated: boolean }) => {
      if (info.nameTruncated || info.valueTruncated) return fail(svcError('uploadMalformed', `form field '${name.slice(0, 40)}' too long`));
      if (name === '__proto__' || name === 'constructor' || name === 'prototype') return;
      fields.set(name, value);
    });
    parser.on('file', (field: string, stream: Readable, info: { filename?: string }) => {
      const snapshot = new Map(fields);
      const file: MultipartFile = { field, filename: info.filename ?? '', body: stream };
      chain = chain.then(async () => {
        if (failed) {
          stream.resume();
          return;
        }
        results.push(await onFile(file, snapshot));
        stream.resume();
      });
      chain.catch(fail);
    });
    parser.on('filesLimit', () => fail(svcError('uploadMalformed', `more than ${limits.maxFiles} files in one request`)));
    parser.on('partsLimit', () => fail(svcError('uploadMalformed', 'too many form parts')));
    parser.on('fieldsLimit', () => fail(svcError('uploadMalformed', 'too many form fields')));
    parser.on('error', (error) => fail(svcError('uploadMalformed', (error as Error).message)));
    parser.on('close', () => {
      chain.then(() => {
        if (!failed) resolve({ fields, results });
      }, fail);
    });
    source.on('error', fail);
    source.pipe(parser);
  });
}
