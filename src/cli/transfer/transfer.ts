import type { JsonObject } from '../../core/wire-values.js';
import { type TableDescription, type TransferSink, type TransferSource, isCopiedTable, mapFiles } from './endpoints.js';
import { type ProgressReporter, silentProgress } from './progress.js';
import { type StateStore, memoryState } from './state.js';

export interface TransferOptions {
  readonly source: TransferSource;
  readonly sink: TransferSink;
  /** Only these tables (default: every user table plus `_User`, `_Role` and `_Installation`). */
  readonly tables?: readonly string[];
  /** Records read per page (default 200). */
  readonly pageSize?: number;
  /** Largest import request body, in bytes (default 768 KiB: under the service's 1 MiB body limit). */
  readonly maxRequestBytes?: number;
  /** Copy the files records name (default true); false keeps the source's urls. */
  readonly files?: boolean;
  readonly state?: StateStore;
  readonly progress?: ProgressReporter;
}

export interface TableReport {
  readonly className: string;
  /** Records in the source when the table's copy began. */
  readonly source: number;
  readonly inserted: number;
  /** Records the target already had (a resumed or repeated run). */
  readonly existing: number;
  readonly relationLinks: number;
  /** File values copied (records the target already had are skipped, files and all). */
  readonly files: number;
  /** Records in the target afterwards. */
  readonly target: number;
}

export interface TransferReport {
  readonly tables: readonly TableReport[];
  /** Every table's target count equals its source count. */
  readonly complete: boolean;
}

/**
 * Copies tables from `source` to `sink`: the schema first, then the records page by page in objectId
 * order (files re-uploaded and their refs rewritten, relation members with their owner), then
 * class-level permissions, then a count on both sides. Resumable through `state`: a table continues
 * after its last copied objectId, and a file copied once is not copied again.
 */
export async function transfer(options: TransferOptions): Promise<TransferReport> {
  const { source, sink } = options;
  const pageSize = options.pageSize ?? 200;
  const maxBytes = options.maxRequestBytes ?? 768 * 1024;
  const stateStore = options.state ?? memoryState();
  const progress = options.progress ?? silentProgress;
  const state = stateStore.load();
  const described = await source.tables();
  const wanted = options.tables ?? described.map((table) => table.className).filter(isCopiedTable);
  const byName = new Map(described.map((table) => [table.className, table]));
  for (const name of wanted) if (!byName.has(name)) throw new Error(`${source.label} has no table ${name}`);
  const reports: TableReport[] = [];
  try {
    for (const name of wanted) reports.push(await copyTable(byName.get(name)!));
  } finally {
    await sink.close();
  }
  return { tables: reports, complete: reports.every((report) => report.target === report.source) };

  async function copyTable(table: TableDescription): Promise<TableReport> {
    const progressOf = state.tables[table.className] ?? { after: null, done: false };
    state.tables[table.className] = progressOf;
    const total = await source.count(table.className);
    const shown = progress.table(table.className, total);
    let inserted = 0;
    let existing = 0;
    let relationLinks = 0;
    let files = 0;
    if (!progressOf.done) {
      await sink.prepare(table);
      for (;;) {
        const page = await source.page(table, progressOf.after, pageSize);
        if (page.length === 0) break;
        const ready: JsonObject[] = [];
        // A record the target has already (a repeated run, a resumed page) is skipped by the import: its files are not copied again.
        const present = options.files === false || !sink.existing ? new Set<string>() : await sink.existing(table.className, page.map((record) => String(record['objectId'])));
        for (const record of page) {
          relationLinks += countLinks(record);
          const copyFiles = options.files !== false && !present.has(String(record['objectId']));
          ready.push(copyFiles ? ((await mapFiles(record, async (file) => (files++, { ...file, ...(await copyFile(file)) }))) as JsonObject) : record);
        }
        for (const chunk of bySize(ready, maxBytes)) {
          const written = await sink.write(table.className, chunk);
          inserted += written.inserted;
          existing += written.existing;
        }
        progressOf.after = String(page.at(-1)!['objectId']);
        stateStore.save(state);
        shown.advance(page.length);
        if (page.length < pageSize) break;
      }
      await sink.finish(table);
      progressOf.done = true;
      stateStore.save(state);
    }
    const target = await sink.count(table.className);
    shown.end(`${table.className}: ${total} in the source, ${inserted} copied, ${existing} already there, ${relationLinks} relation links, ${files} files; ${target} in the target${target === total ? '' : ' (MISMATCH)'}`);
    return { className: table.className, source: total, inserted, existing, relationLinks, files, target };
  }

  async function copyFile(file: JsonObject): Promise<JsonObject> {
    const url = String(file['url']);
    const known = state.files[url];
    if (known) return { ...known };
    const filename = typeof file['filename'] === 'string' ? file['filename'] : url.split('/').pop() || 'file';
    const copied = await sink.upload(filename, await source.download(url));
    state.files[url] = copied;
    return { ...copied };
  }
}

function countLinks(record: JsonObject): number {
  let links = 0;
  for (const value of Object.values(record)) {
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && value['__type'] === 'Relation' && Array.isArray(value['objectIds'])) links += value['objectIds'].length;
  }
  return links;
}

/** Groups records into runs whose JSON stays under `maxBytes` (a single larger record goes alone). */
function* bySize(records: readonly JsonObject[], maxBytes: number): Generator<JsonObject[]> {
  let run: JsonObject[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record)) + 1;
    if (run.length > 0 && bytes + size > maxBytes) {
      yield run;
      run = [];
      bytes = 0;
    }
    run.push(record);
    bytes += size;
  }
  if (run.length > 0) yield run;
}
