/**
 * Uploads: the files feature behind `service.handle` (routing, REST-key auth, name and type checks,
 * sniffing, quota bookkeeping, the local disk store's temp-file-and-rename) against writing the same
 * bytes with `fs.writeFile` directly. Each operation writes one file and deletes it again (the store's
 * delete vs `fs.unlink`), so the disk does not fill. Wall-clock rates (the work is I/O).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { internalCaller } from '../src/app/caller.js';
import { localFileStore } from '../src/files/index.js';
import { memoryStorage } from '../src/memory.js';
import { createService } from '../src/service.js';
import { type BenchConfig, compare } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';

const APP = { applicationId: 'bench', restApiKey: 'bench-rest', masterKey: 'bench-master' };

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-bench-files-'));
  const rawDir = join(dir, 'raw');
  const service = createService({
    storage: memoryStorage(),
    applications: [APP],
    captcha: false,
    files: { store: localFileStore({ root: join(dir, 'store') }), media: false, limits: { maxFileBytes: 16 * 1024 * 1024 } },
  });
  const app = service.applications.get(APP.applicationId)!;
  const files = service.registry.files!;
  const rows: ResultRow[] = [];
  try {
    for (const [label, size] of [
      ['1 MiB file', 1024 * 1024],
      ['1 KiB file', 1024],
    ] as const) {
      const bytes = new Uint8Array(size).fill(120);
      let n = 0;
      const ours = async () => {
        const response = await service.handle({
          method: 'POST',
          path: '/2/files/bench.txt',
          search: '',
          headers: { 'x-svc-application-id': APP.applicationId, 'x-svc-rest-api-key': APP.restApiKey, 'content-length': String(size) },
          body: bytes,
          baseUrl: 'http://127.0.0.1',
        });
        if (response.status !== 200) throw new Error(`upload failed: ${String(response.body)}`);
        const { url } = JSON.parse(String(response.body)) as { url: string };
        await files.delete(internalCaller(app), url);
      };
      const { mkdir } = await import('node:fs/promises');
      await mkdir(rawDir, { recursive: true });
      const reference = async () => {
        const path = join(rawDir, `f${n++}.txt`);
        await writeFile(path, bytes);
        await unlink(path);
      };
      config.log(`files: upload ${label} vs fs.writeFile`);
      const result = await compare(config, ours, reference, { clock: 'wall' });
      const mb = size / (1024 * 1024);
      rows.push(
        comparisonRow('files', `upload + delete, ${label} (service.handle, local store)`, 'fs.writeFile + unlink', result, null, {
          unit: 'files/s',
          detail: { bytes: size, oursMiBps: Math.round(result.ours * mb * 10) / 10, referenceMiBps: Math.round(result.reference * mb * 10) / 10 },
          note: 'informational: ours adds auth, checks, sniffing, quota counting and a temp-file rename',
        }),
      );
    }
  } finally {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
