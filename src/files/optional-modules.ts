import type { Writable } from 'node:stream';
import { configError, svcError } from '../core/errors.js';
import { loadOptional } from '../core/optional-module.js';

export { loadOptional };

/** The busboy factory, by shape (busboy 1.x is an optional peer dependency). */
export type BusboyFactory = (config: {
  headers: Record<string, string>;
  limits: { files: number; fileSize: number; fields: number; fieldSize: number; parts: number };
}) => Writable;

/** The members of `qrcode` used (an optional peer dependency). */
export interface QrCodeModule {
  toBuffer(text: string, options: { type: 'png'; width: number; margin: number; errorCorrectionLevel: 'L' | 'M' | 'Q' | 'H' }): Promise<Uint8Array>;
}

/** The members of `aws4fetch` used (an optional peer dependency). */
export interface Aws4FetchModule {
  AwsClient: new (options: {
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken?: string;
    service: string;
    region: string;
    retries: number;
  }) => { sign(input: string, init?: RequestInit & { aws?: { signQuery?: boolean } }): Promise<Request> };
}

/** busboy, or 11007 saying how to install it (multipart uploads need it; raw uploads do not). */
export function requireBusboy(): BusboyFactory {
  const mod = loadOptional('busboy') as BusboyFactory | { default?: BusboyFactory } | undefined;
  const factory = typeof mod === 'function' ? mod : mod?.default;
  if (typeof factory !== 'function') throw svcError('featureDisabled', 'multipart uploads (the server needs the optional peer dependency busboy: npm install busboy)');
  return factory;
}

/** qrcode, or 11007 saying how to install it. */
export function requireQrCode(): QrCodeModule {
  const mod = loadOptional('qrcode') as Partial<QrCodeModule> | undefined;
  if (typeof mod?.toBuffer !== 'function') throw svcError('featureDisabled', 'QR codes (the server needs the optional peer dependency qrcode: npm install qrcode)');
  return mod as QrCodeModule;
}

/** aws4fetch, or a `[svcbase] [files]` error at start-up. */
export function requireAws4Fetch(): Aws4FetchModule {
  const mod = loadOptional('aws4fetch') as Partial<Aws4FetchModule> | undefined;
  if (typeof mod?.AwsClient !== 'function') throw configError('files', 's3FileStore needs the optional peer dependency aws4fetch: npm install aws4fetch');
  return mod as Aws4FetchModule;
}
