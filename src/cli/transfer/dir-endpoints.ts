import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, rmSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { isValidTableName } from '../../core/names.js';
import type { JsonObject } from '../../core/wire-values.js';
import type { TableDescription, TransferSink, TransferSource } from './endpoints.js';

/**
 * An export folder: `schemas.json` (the tables as the schema API describes them), one
 * `tables/<className>.jsonl` per table (a record per line, in objectId order, Relation members
 * included), and `files/<hash>-<name>` for the files records name (their url is that relative path).
 */
const FORMAT = 'svcbase-export';
const VERSION = 1;

function tableFile(dir: string, className: string): string {
  if (!isValidTableName(className)) throw new Error(`export folder: '${className.slice(0, 64)}' is not a table name`);
  return join(dir, 'tables', `${className}.jsonl`);
}

export function dirSink(dir: string): TransferSink {
  const root = resolve(dir);
  const tables: TableDescription[] = [];
  const counts = new Map<string, number>();
  mkdirSync(join(root, 'tables'), { recursive: true });
  mkdirSync(join(root, 'files'), { recursive: true });
  return {
    label: root,
    async prepare(table) {
      tables.push(table);
      counts.set(table.className, 0);
      rmSync(tableFile(root, table.className), { force: true });
    },
    async write(className, records) {
      if (records.length === 0) return { inserted: 0, existing: 0 };
      await appendFile(tableFile(root, className), records.map((record) => JSON.stringify(record) + '\n').join(''));
      counts.set(className, (counts.get(className) ?? 0) + records.length);
      return { inserted: records.length, existing: 0 };
    },
    finish: async () => {},
    async upload(filename, bytes) {
      const name = `${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}-${filename.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100)}`;
      const path = join(root, 'files', name);
      if (!existsSync(path)) await writeFile(path, bytes);
      return { filename, url: `files/${name}` };
    },
    count: async (className) => counts.get(className) ?? 0,
    async close() {
      await writeFile(join(root, 'schemas.json'), JSON.stringify({ format: FORMAT, version: VERSION, tables }, null, 2) + '\n');
    },
  };
}

export function dirSource(dir: string): TransferSource {
  const root = resolve(dir);
  // One open reader per table, continuing where the last page ended (a page per call keeps memory flat).
  const readers = new Map<string, { lines: AsyncIterator<string>; last: string | null }>();
  const open = (className: string) => {
    const lines = createInterface({ input: createReadStream(tableFile(root, className)), crlfDelay: Infinity })[Symbol.asyncIterator]();
    return { lines, last: null as string | null };
  };
  return {
    label: root,
    async tables() {
      const manifest = JSON.parse(await readFile(join(root, 'schemas.json'), 'utf8')) as { format?: unknown; version?: unknown; tables?: unknown };
      if (manifest.format !== FORMAT || manifest.version !== VERSION || !Array.isArray(manifest.tables)) throw new Error(`${root}/schemas.json is not a ${FORMAT} v${VERSION} manifest`);
      const tables = manifest.tables as TableDescription[];
      for (const table of tables) {
        if (typeof table !== 'object' || table === null || typeof table.className !== 'string' || typeof table.fields !== 'object' || table.fields === null) throw new Error(`${root}/schemas.json: a table entry is malformed`);
        tableFile(root, table.className);
      }
      return tables;
    },
    async count(className) {
      if (!existsSync(tableFile(root, className))) return 0;
      let lines = 0;
      for await (const line of createInterface({ input: createReadStream(tableFile(root, className)), crlfDelay: Infinity })) if (line.trim()) lines++;
      return lines;
    },
    async page(table, after, limit) {
      if (!existsSync(tableFile(root, table.className))) return [];
      let reader = readers.get(table.className);
      if (!reader || reader.last !== after) {
        reader = open(table.className);
        readers.set(table.className, reader);
      }
      const records: JsonObject[] = [];
      while (records.length < limit) {
        const next = await reader.lines.next();
        if (next.done) break;
        if (!next.value.trim()) continue;
        let record: unknown;
        try {
          record = JSON.parse(next.value);
        } catch {
          throw new Error(`${tableFile(root, table.className)}: a line is not JSON (${next.value.slice(0, 60)})`);
        }
        if (typeof record !== 'object' || record === null || Array.isArray(record)) throw new Error(`${tableFile(root, table.className)}: a line is not a record`);
        const objectId = (record as JsonObject)['objectId'];
        // Resuming: lines up to the last imported id were done.
        if (after !== null && typeof objectId === 'string' && objectId <= after && reader.last === null) continue;
        records.push(record as JsonObject);
      }
      const lastId = records.at(-1)?.['objectId'];
      reader.last = typeof lastId === 'string' ? lastId : after;
      return records;
    },
    async download(url) {
      const path = resolve(root, url);
      if (!path.startsWith(join(root, 'files') + sep)) throw new Error(`export folder: file url '${url.slice(0, 100)}' is outside ${root}/files`);
      return new Uint8Array(await readFile(path));
    },
  };
}
