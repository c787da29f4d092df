import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localFileStore } from '../../src/files/index.js';
import type { FilesOptions } from '../../src/files/index.js';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';
import type { ServiceOptions } from '../../src/service.js';

export const md5 = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

/** A fresh temporary folder, removed by the returned cleanup. */
export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-files-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface FilesServer extends TestServer {
  dir: string;
}

/** A test server with files on, stored in a temporary folder, Svc and Bmob brands. */
export async function startFilesServer(files: FilesOptions = {}, options: Partial<ServiceOptions> = {}): Promise<FilesServer> {
  const temp = tempDir();
  const server = await startTestServer({
    brands: ['Svc', 'Bmob'],
    ...options,
    files: { store: localFileStore({ root: temp.dir }), media: false, ...files },
  });
  return {
    ...server,
    dir: temp.dir,
    async close() {
      await server.close();
      temp.remove();
    },
  };
}

/** Signed-mode headers (Bmob brand) for `route` with the given signature. */
export function signedHeaders(sign: string, ts: string, nonce: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'X-Bmob-Secret-Key': TEST_APP.secretKey!,
    'X-Bmob-Safe-Timestamp': ts,
    'X-Bmob-Noncestr-Key': nonce,
    'X-Bmob-Safe-Sign': sign,
    ...extra,
  };
}

export const now = () => String(Math.round(Date.now() / 1000));

/** Upload body types the tests send. */
export type UploadBody = string | Uint8Array | FormData | Blob;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (r: Response): Promise<any> => r.json();
