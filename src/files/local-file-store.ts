import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createHash, randomBytes } from 'node:crypto';
import { dirname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ByteRange, FileMeta, FileReadStream, FileStore, StoredFileInfo } from './file-store.js';

/** Options of {@link localFileStore}. */
export interface LocalFileStoreOptions {
  /** Folder holding the files (created when missing), e.g. `./data/files`. */
  readonly root: string;
}

const META_SUFFIX = '.meta.json';
const KEY = /^[A-Za-z0-9_]+(?:\/[A-Za-z0-9_.-]+)+$/;

/**
 * Files on local disk under `root`: the bytes at `<root>/<key>`, the metadata beside them in
 * `<key>.meta.json`. A put writes a temporary file and renames it into place, so a failed upload
 * leaves nothing behind and readers never see half a file. One process per folder.
 *
 * @example createService({ ..., files: { store: localFileStore({ root: './data/files' }) } })
 */
export function localFileStore(options: LocalFileStoreOptions): FileStore {
  const root = resolve(options.root);
  const pathOf = (key: string): string => {
    if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
      throw new Error(`[svcbase] [files] invalid store key '${key}'`);
    }
    const path = join(root, key);
    if (!path.startsWith(root + sep)) throw new Error(`[svcbase] [files] store key '${key}' leaves the root`);
    return path;
  };
  const readInfo = async (key: string): Promise<StoredFileInfo | null> => {
    try {
      return JSON.parse(await readFile(pathOf(key) + META_SUFFIX, 'utf8')) as StoredFileInfo;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  };

  return {
    name: 'local',
    async put(key: string, body: AsyncIterable<Uint8Array>, meta: FileMeta): Promise<StoredFileInfo> {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      const temp = `${path}.${randomBytes(6).toString('hex')}.part`;
      const hash = createHash('sha256');
      let size = 0;
      try {
        await pipeline(
          Readable.from(counted(body, (chunk) => {
            size += chunk.length;
            hash.update(chunk);
          })),
          createWriteStream(temp, { flags: 'wx' }),
        );
        const info: StoredFileInfo = {
          key,
          size,
          contentType: meta.contentType,
          filename: meta.filename,
          etag: `"${hash.digest('hex').slice(0, 32)}"`,
          lastModified: Math.floor((await stat(temp)).mtimeMs),
        };
        // Bytes first, then the metadata: readers go by the metadata, so they never see half a file.
        await writeFile(temp + META_SUFFIX, JSON.stringify(info));
        await rename(temp, path);
        await rename(temp + META_SUFFIX, path + META_SUFFIX);
        return info;
      } catch (error) {
        await rm(temp, { force: true });
        await rm(temp + META_SUFFIX, { force: true });
        throw error;
      }
    },
    async get(key: string, range?: ByteRange): Promise<FileReadStream | null> {
      const info = await readInfo(key);
      if (!info) return null;
      const stream = createReadStream(pathOf(key), range ? { start: range.start, end: range.end } : {});
      return { info, body: stream };
    },
    stat: readInfo,
    async delete(key: string): Promise<boolean> {
      const info = await readInfo(key);
      await rm(pathOf(key), { force: true });
      await rm(pathOf(key) + META_SUFFIX, { force: true });
      return info !== null;
    },
    // Reads every metadata file: fine for a browser's pages, not for millions of files (docs/files.md).
    async list(prefix: string, after: string, limit: number): Promise<StoredFileInfo[]> {
      const keys = (await listMeta(root)).filter((entry) => entry.key.startsWith(prefix) && entry.key > after);
      return keys.sort((a, b) => (a.key < b.key ? -1 : 1)).slice(0, limit);
    },
    async usage(prefix: string): Promise<number> {
      let total = 0;
      for (const entry of await listMeta(root)) {
        if (!entry.key.startsWith(prefix)) continue;
        total += entry.size;
      }
      return total;
    },
  };
}

async function* counted(body: AsyncIterable<Uint8Array>, onChunk: (chunk: Uint8Array) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of body) {
    onChunk(chunk);
    yield chunk;
  }
}

async function listMeta(root: string): Promise<StoredFileInfo[]> {
  let names: string[];
  try {
    names = (await readdir(root, { recursive: true })) as string[];
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const out: StoredFileInfo[] = [];
  for (const name of names) {
    if (!name.endsWith(META_SUFFIX)) continue;
    try {
      out.push(JSON.parse(await readFile(join(root, name), 'utf8')) as StoredFileInfo);
    } catch {
      // A meta file removed while listing: not counted.
    }
  }
  return out;
}
