/**
 * The soak group's well-behaved client (bench/soak.ts), in its own process so the hostile load's
 * sockets and messages never delay its clock: GETs by id and creates of its own application, a few
 * loops at a steady pace, and one call a second of its own small deployed function. Told what to do
 * over IPC (`SoakClientTask`), it answers with a `SoakClientResult` and exits.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

export interface SoakClientTask {
  readonly base: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Records GETs pick from. */
  readonly ids: readonly string[];
  readonly durationMs: number;
  /** Concurrent GET/create loops. */
  readonly loops: number;
  /** Pause between two requests of one loop, ms. */
  readonly pauseMs: number;
  /** A deployed function of this application to call every `functionEveryMs` (none: no calls). */
  readonly functionName?: string;
  readonly functionEveryMs: number;
}

export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** Answers that were not 2xx (or failed to arrive), by status (`error` for a network failure). */
  readonly failures: Readonly<Record<string, number>>;
}

export interface SoakClientResult {
  readonly rest: LatencySummary;
  readonly functions: LatencySummary;
  /** This process's own event-loop delay, ms: a large one means the client, not the server, was slow. */
  readonly loopDelayP99: number;
}

function summary(latencies: number[], failures: Record<string, number>): LatencySummary {
  latencies.sort((a, b) => a - b);
  const at = (q: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!);
  const round = (n: number) => Math.round(n * 100) / 100;
  return { count: latencies.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(at(1)), failures };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Times one request; a non-2xx answer, a network failure or no answer within 30 s is counted in `failures`. */
async function timed(url: string, init: RequestInit, latencies: number[], failures: Record<string, number>): Promise<void> {
  const started = performance.now();
  let status: string;
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    status = String(response.status);
  } catch {
    status = 'error';
  }
  latencies.push(performance.now() - started);
  if (!status.startsWith('2')) failures[status] = (failures[status] ?? 0) + 1;
}

export async function runClient(task: SoakClientTask): Promise<SoakClientResult> {
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const until = performance.now() + task.durationMs;
  const rest: number[] = [];
  const restFailures: Record<string, number> = {};
  const functions: number[] = [];
  const functionFailures: Record<string, number> = {};
  const json = { ...task.headers, 'Content-Type': 'application/json' };
  let n = 0;
  const restLoop = async (k: number) => {
    for (let i = k; performance.now() < until; i++) {
      if (i % 2 === 0) await timed(`${task.base}/1/classes/SoakItem/${task.ids[(i * 7 + k) % task.ids.length]}`, { headers: task.headers }, rest, restFailures);
      else await timed(`${task.base}/1/classes/SoakItem`, { method: 'POST', headers: json, body: JSON.stringify({ n: n++, name: `item-${k}-${i}` }) }, rest, restFailures);
      await pause(task.pauseMs);
    }
  };
  const functionLoop = async () => {
    if (!task.functionName) return;
    while (performance.now() < until) {
      await timed(`${task.base}/1/functions/${task.functionName}`, { method: 'POST', headers: json, body: '{}' }, functions, functionFailures);
      await pause(task.functionEveryMs);
    }
  };
  await Promise.all([...Array.from({ length: task.loops }, (_, k) => restLoop(k)), functionLoop()]);
  loop.disable();
  return { rest: summary(rest, restFailures), functions: summary(functions, functionFailures), loopDelayP99: Math.round(loop.percentile(99) / 1e4) / 100 };
}

// Run as the child: one task, one answer.
if (process.send) {
  process.once('message', (task: SoakClientTask) => {
    void runClient(task).then((result) => process.send!(result, () => process.exit(0)));
  });
}
