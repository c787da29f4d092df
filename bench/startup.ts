/**
 * Group: start-up time and memory of the quick-start server (issue 22 item 6), reported each run.
 * Each round forks a fresh process and times fork -> first answered request (`GET /1/timestamp`),
 * beside a bare node:http server doing the same (the limit: starting Node itself). Memory: RSS when
 * idle after that first request, and after a REST mix (creates, reads by id, lists of 20). Rows are
 * informational (no target); the ratio is the bare start-up time over ours.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from './build.js';
import type { BenchConfig } from './harness.js';
import type { ResultRow } from './report.js';

const HEADERS = {
  'X-Svc-Application-Id': 'dev-app-id',
  'X-Svc-REST-API-Key': 'dev-rest-key',
  'Content-Type': 'application/json',
};

interface Started {
  readonly child: ChildProcess;
  readonly base: string;
  /** Fork to first answered request, in ms. */
  readonly firstAnswerMs: number;
}

async function startOnce(entry: string, args: string[]): Promise<Started> {
  const t0 = performance.now();
  const child = fork(entry, args, { execArgv: ['--expose-gc'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`startup child exited (${code}) before listening`)));
  });
  const base = `http://127.0.0.1:${port}`;
  const response = await fetch(`${base}/1/timestamp`, { headers: HEADERS });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`first request answered ${response.status}`);
  return { child, base, firstAnswerMs: performance.now() - t0 };
}

function memoryOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: { rss: number }) => resolve(m.rss));
    child.send({ type: 'memory' });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** The REST mix: creates, then reads by id and lists of 20, 16 requests in flight. */
async function restMix(base: string, total: number): Promise<void> {
  const ids: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      let response: Response;
      if (i % 3 === 0 || ids.length === 0) {
        response = await fetch(`${base}/1/classes/BenchItem`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ n: i, name: `item${i}`, tags: ['a', 'b'] }) });
        const body = (await response.json()) as { objectId?: string };
        if (body.objectId) ids.push(body.objectId);
        continue;
      }
      response = i % 3 === 1
        ? await fetch(`${base}/1/classes/BenchItem/${ids[i % ids.length]}`, { headers: HEADERS })
        : await fetch(`${base}/1/classes/BenchItem?limit=20&order=-n`, { headers: HEADERS });
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  // Bundled next to this module by the runner (bench/.build/startup-server.mjs); under tsx, bundled here.
  const entry = import.meta.url.endsWith('.ts')
    ? await bundle('startup-server', { file: fileURLToPath(new URL('./startup-server.ts', import.meta.url)) })
    : fileURLToPath(new URL('./startup-server.mjs', import.meta.url));
  const rounds = config.quick ? 3 : 7;
  const dir = mkdtempSync(join(tmpdir(), 'svc-startup-'));
  try {
    const ours: number[] = [];
    const bare: number[] = [];
    let idle = 0;
    let loaded = 0;
    for (let round = 0; round < rounds; round++) {
      const b = await startOnce(entry, ['bare']);
      bare.push(b.firstAnswerMs);
      await stop(b.child);
      const s = await startOnce(entry, ['svc', join(dir, `r${round}.db`)]);
      ours.push(s.firstAnswerMs);
      if (round === rounds - 1) {
        idle = await memoryOf(s.child);
        await restMix(s.base, config.quick ? 1500 : 6000);
        loaded = await memoryOf(s.child);
      }
      await stop(s.child);
    }
    config.log(`startup: ours ${ours.map(Math.round).join('/')} ms, bare ${bare.map(Math.round).join('/')} ms`);
    const row = (workload: string, unit: string, value: number, reference: number | null, referenceName: string): ResultRow => ({
      group: 'startup',
      workload,
      unit,
      ours: value,
      referenceName,
      reference,
      ratio: reference === null ? null : reference / value,
      target: null,
      pass: null,
    });
    const oursMs = median(ours);
    const bareMs = median(bare);
    return [
      row('quick start: fork to first answer', 'ms', Math.round(oursMs), Math.round(bareMs), 'bare node:http'),
      row('quick start: RSS idle', 'MB', mb(idle), null, ''),
      row(`quick start: RSS after REST mix (${config.quick ? 1500 : 6000} requests)`, 'MB', mb(loaded), null, ''),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
