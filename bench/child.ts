/**
 * The body of a benchmark child process: runs one group and sends its rows to the parent
 * (bench/run.ts) over IPC. Bundled per group by bench/build.ts.
 */
import { type BenchConfig, benchConfig } from './harness.js';
import { type Group, type ResultRow, skippedRow } from './report.js';

export interface ChildMessage {
  readonly rows: ResultRow[];
}

export async function childMain(group: Group, run: (config: BenchConfig) => Promise<ResultRow[]>): Promise<void> {
  const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
  const config = benchConfig(process.argv.includes('--quick'), log);
  let rows: ResultRow[];
  try {
    rows = await run(config);
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    log(`${group}: ${error instanceof Error && error.stack ? error.stack : message}`);
    rows = [skippedRow(group, `${group} group`, message)];
  }
  if (process.send) await new Promise<void>((resolve) => process.send!({ rows } satisfies ChildMessage, () => resolve()));
  else process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
  process.exit(0);
}
