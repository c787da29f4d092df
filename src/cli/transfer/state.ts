import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { FileRef } from './rest-client.js';

/** How far a transfer got: the last objectId copied per table, finished tables, and files already copied (source url → new ref). */
export interface TransferState {
  tables: Record<string, { after: string | null; done: boolean }>;
  files: Record<string, FileRef>;
}

export interface StateStore {
  load(): TransferState;
  save(state: TransferState): void;
  /** Forgets the progress (a finished transfer: the next run starts over). */
  clear(): void;
}

const empty = (): TransferState => ({ tables: {}, files: {} });

/** Kept in memory only: a run that stops starts over (imports skip ids already there, so nothing doubles). */
export function memoryState(): StateStore {
  let saved = empty();
  return { load: () => structuredClone(saved), save: (state) => void (saved = structuredClone(state)), clear: () => void (saved = empty()) };
}

/** Kept in a JSON file, replaced atomically after every page, so a stopped run resumes where it was. */
export function fileState(path: string): StateStore {
  return {
    load() {
      if (!existsSync(path)) return empty();
      const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<TransferState>;
      return { tables: parsed.tables ?? {}, files: parsed.files ?? {} };
    },
    save(state) {
      writeFileSync(`${path}.tmp`, JSON.stringify(state));
      renameSync(`${path}.tmp`, path);
    },
    clear: () => rmSync(path, { force: true }),
  };
}
