import { createReadStream } from 'node:fs';
import { readFile, readdir, unlink } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { type Clock, systemClock } from '../core/clock.js';
import type { ByteRange, FileMeta, FileReadStream, FileStore, StoredFileInfo } from './file-store.js';
import { makeDirectory, readSmallFile, syncDirectory } from './local-file-io.js';
import { putLocalFile } from './local-file-put.js';

/** Options of {@link localFileStore}. */
export interface LocalFileStoreOptions {
  /** Folder holding the files (created when missing), e.g. `./data/files`. */
  readonly root: string;
  /**
   * Make every upload and delete last a power loss or an operating-system crash before it returns:
   * the bytes are synced to disk before the metadata record is written, then the record and the
   * folder are synced (three syncs per upload, each a disk round trip). Default false: an upload
   * lasts a crash of the process, not of the machine (docs/files.md, "Durability").
   */
  readonly sync?: boolean;
  /** Time source of `lastModified`. Default: the system clock. */
  readonly clock?: Clock;
}

const META_SUFFIX = '.meta.json';
const KEY = /^[A-Za-z0-9_]+(?:\/[A-Za-z0-9_.-]+)+$/;
/** Folders known to exist (keys share a folder per application and day): at most this many. */
const MAX_KNOWN_FOLDERS = 1024;
/** Metadata records kept in memory (a few hundred bytes each): the most recently written or read. */
const MAX_CACHED_RECORDS = 1024;

/**
 * Files on local disk under `root`: the bytes at `<root>/<key>`, the metadata record beside them in
 * `<key>.meta.json`. The record is what publishes a file: it is written only once every byte is
 * written, and removed first on delete, so readers (who go by the record) never see half a file,
 * and a failed or interrupted upload leaves nothing readable. A record that does not parse (an
 * upload cut short by a crash) counts as absent. Keys are fresh random names, so nothing is ever
 * overwritten and no temporary name or rename is needed. One process per folder.
 *
 * @example createService({ ..., files: { store: localFileStore({ root: './data/files' }) } })
 */
export function localFileStore(options: LocalFileStoreOptions): FileStore {
  const root = resolve(options.root);
  const sync = options.sync ?? false;
  const clock = options.clock ?? systemClock;
  const knownFolders = new Set<string>();
  const pathOf = (key: string): string => {
    if (!KEY.test(key) || key.split('/').some((part) => part === '.' || part === '..')) {
      throw new Error(`[svcbase] [files] invalid store key '${key}'`);
    }
    const path = join(root, key);
    if (!path.startsWith(root + sep)) throw new Error(`[svcbase] [files] store key '${key}' leaves the root`);
    return path;
  };
  // Records never change (keys are fresh, a record only goes away on delete) and one process owns
  // the folder, so a record this store wrote or read stays true until it deletes it.
  const records = new Map<string, StoredFileInfo>();
  const remember = (info: StoredFileInfo) => {
    if (records.size >= MAX_CACHED_RECORDS) records.delete(records.keys().next().value as string);
    records.set(info.key, info);
  };
  const readInfo = async (key: string): Promise<StoredFileInfo | null> => {
    const path = pathOf(key);
    const known = records.get(key);
    if (known) return known;
    let text: string;
    try {
      text = await readSmallFile(path + META_SUFFIX);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const info = parseInfo(text);
    if (info) remember(info);
    return info;
  };
  const ensureFolder = async (folder: string): Promise<void> => {
    if (knownFolders.has(folder)) return;
    await makeDirectory(folder, sync);
    if (knownFolders.size >= MAX_KNOWN_FOLDERS) knownFolders.clear();
    knownFolders.add(folder);
  };

  return {
    name: 'local',
    async put(key: string, body: AsyncIterable<Uint8Array>, meta: FileMeta): Promise<StoredFileInfo> {
      const path = pathOf(key);
      const folder = dirname(path);
      await ensureFolder(folder);
      const put = {
        path,
        recordPath: path + META_SUFFIX,
        folder,
        sync,
        info: { key, contentType: meta.contentType, filename: meta.filename, lastModified: clock.now() },
      };
      try {
        const info = await putLocalFile(put, body);
        remember(info);
        return info;
      } catch (error) {
        const { code, path: failed } = error as NodeJS.ErrnoException;
        if (code !== 'ENOENT' || failed !== path) throw error;
        // Creating the bytes' file failed, before any byte was read: the folder was removed behind
        // our back, so make it again and start over.
        knownFolders.delete(folder);
        await ensureFolder(folder);
        const info = await putLocalFile(put, body);
        remember(info);
        return info;
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
      const path = pathOf(key);
      records.delete(key);
      // The record first: once it is gone the file is gone for readers, whatever happens next.
      const existed = await removeIfPresent(path + META_SUFFIX);
      await removeIfPresent(path);
      if (sync && existed) await syncDirectory(dirname(path));
      return existed;
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

/** A metadata record, or null for one cut short (a crash while it was written). */
function parseInfo(text: string): StoredFileInfo | null {
  try {
    return JSON.parse(text) as StoredFileInfo;
  } catch {
    return null;
  }
}

async function removeIfPresent(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
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
      const info = parseInfo(await readFile(join(root, name), 'utf8'));
      if (info) out.push(info);
    } catch {
      // A meta file removed while listing: not counted.
    }
  }
  return out;
}
