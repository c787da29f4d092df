/**
 * Group 8: realtime. Write-to-event latency and delivery rate with 1, 1,000 and 10,000 subscribers of
 * one table on one instance (quick: 1 and 200), beside a bare `ws` broadcast of the same bytes to the
 * same number of sockets: the limit our engine (write observer → bus → match → encode → send) is
 * measured against. Each write waits until every subscriber received its event, so the latency is to
 * the last subscriber. The subscribers live in a child process (bench/realtime-fleet.ts) that reports
 * each completed round over IPC unasked: a round sends that process nothing but the frames (until
 * 2026-11-29 each round also sent it a command, which woke it once more per round on both sides and
 * landed beside bare ws's frame but ahead of ours, docs/performance.md). Memory
 * per idle connection is the server side's heap + external growth per open socket, for ours and for
 * bare `ws`; run with `ulimit -n` of at least 12,000. The server process's CPU time per event (user +
 * system, the write included on our side) is reported beside the rates: it counts the server's own
 * work, not the time it waited for a core on a shared machine. As the harness's method asks, each
 * side first runs unmeasured warm-up rounds (`warmupRounds`), so neither is timed while its code is
 * still being compiled.
 * Informational (no target): the numbers depend on the loopback stack more than on us.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type WebSocket, WebSocketServer } from 'ws';
import type { FleetCommand, FleetReply } from './realtime-fleet.js';
import { memoryStorage } from '../src/memory.js';
import { toNodeListener } from '../src/node.js';
import { type Service, createService } from '../src/service.js';
import { type BenchConfig, collectGarbage, round3 } from './harness.js';
import type { ResultRow } from './report.js';

const APP = { applicationId: 'bench', restApiKey: 'rest', masterKey: 'master', settings: { features: { realtime: true } } };
const HEADERS = { 'x-svc-application-id': 'bench', 'x-svc-rest-api-key': 'rest', 'content-type': 'application/json' };

/** The subscribers, in a child process of their own (bench/realtime-fleet.ts): 10,000 sockets a side would pass one process's descriptor limit. */
interface RemoteFleet {
  /** Resolves once every subscriber has received one more message (the fleet reports it unasked); the first one's text. */
  nextRound(): Promise<string>;
  close(): Promise<void>;
}

async function openRemoteFleet(url: string, n: number, subscribe: boolean, headers: Record<string, string> = {}): Promise<RemoteFleet> {
  // Bundled next to this module (bench/.build/realtime-fleet.mjs) or, under tsx, the TypeScript source.
  const entry = import.meta.url.endsWith('.ts') ? './realtime-fleet.ts' : './realtime-fleet.mjs';
  const child: ChildProcess = fork(fileURLToPath(new URL(entry, import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    ...(import.meta.url.endsWith('.ts') ? { execArgv: ['--import', 'tsx'] } : {}),
  });
  const replies: Array<(message: FleetReply) => void> = [];
  // Rounds reported before anyone awaited them, and awaiters of rounds not reported yet.
  const reported: string[] = [];
  const awaiting: Array<(first: string) => void> = [];
  child.on('message', (message: FleetReply) => {
    if (message.kind !== 'round') return replies.shift()?.(message);
    const awaiter = awaiting.shift();
    if (awaiter) awaiter(message.first);
    else reported.push(message.first);
  });
  const ask = (command: FleetCommand) =>
    new Promise<FleetReply>((resolve, reject) => {
      replies.push((reply) => (reply.kind === 'error' ? reject(new Error(reply.message)) : resolve(reply)));
      child.send(command);
    });
  await ask({ kind: 'open', url, n, subscribe, headers });
  return {
    nextRound: () => (reported.length > 0 ? Promise.resolve(reported.shift()!) : new Promise<string>((resolve) => awaiting.push(resolve))),
    close: async () => {
      await ask({ kind: 'close' });
      await new Promise<void>((resolve) => (child.exitCode === null ? child.once('exit', () => resolve()) : resolve()));
    },
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function memoryNow(): number {
  collectGarbage();
  const m = process.memoryUsage();
  return m.heapUsed + m.external + m.arrayBuffers;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface Measured {
  eventsPerSecond: number;
  p50: number;
  p99: number;
  bytesPerConnection: number;
  frame: string;
  /** This process's CPU time over the rounds, in µs: user + system, and each alone. */
  cpuMicros: number;
  cpuUserMicros: number;
  cpuSystemMicros: number;
}

/** Unmeasured rounds before the timed ones, the same for both sides: about 20,000 events, at most `writes` rounds and at least 3. */
export function warmupRounds(n: number, writes: number): number {
  return Math.max(3, Math.min(writes, Math.ceil(20_000 / n)));
}

/** Called in each timed round: when it starts, once `service.handle()` has answered the write, and once every subscriber has the event. */
export type RoundTrace = (phase: 'start' | 'answered' | 'delivered') => void;

export async function measureOurs(n: number, writes: number, warmup = 0, trace?: RoundTrace): Promise<Measured> {
  const service: Service = createService({ storage: memoryStorage(), applications: [APP], captcha: false, users: false, realtime: { maxConnectionsPerApp: 20_000, maxConnectionsPerAddress: 20_000, maxInboundBytesPerAddress: 1 << 30, maxInboundBytesPerApp: 1 << 30 } }); // every subscriber comes from 127.0.0.1, and 10,000 subscribe at once
  const server = createServer(toNodeListener(service));
  server.on('upgrade', (req, socket, head) => void service.handleUpgrade(req, socket, head));
  const url = `${await listen(server)}/1/realtime`;
  const before = memoryNow();
  const fleet = await openRemoteFleet(url, n, true, HEADERS);
  const bytesPerConnection = (memoryNow() - before) / n;
  const write = (i: number) =>
    service.handle({ method: 'POST', path: '/1/classes/Bench', search: '', headers: HEADERS, body: new TextEncoder().encode(`{"score":${i},"name":"player ${i}"}`) });
  let frame = '';
  for (let i = 0; i < warmup; i++) {
    const round = fleet.nextRound();
    await write(-1 - i);
    await round;
  }
  const latencies: number[] = [];
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < writes; i++) {
    const t0 = performance.now();
    trace?.('start');
    const round = fleet.nextRound();
    await write(i);
    trace?.('answered');
    frame = await round;
    trace?.('delivered');
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await fleet.close();
  await service.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  latencies.sort((a, b) => a - b);
  return { eventsPerSecond: (n * writes) / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), bytesPerConnection, frame, cpuMicros: cpu.user + cpu.system, cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system };
}

/** The limit: a bare ws server sending the same frame to every socket, as fast as it can. */
export async function measureBareWs(n: number, writes: number, frame: string, warmup = 0): Promise<Measured> {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server = createServer();
  const sockets = new Set<WebSocket>();
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => sockets.add(ws)));
  const url = await listen(server);
  const before = memoryNow();
  const fleet = await openRemoteFleet(url, n, false);
  while (sockets.size < n) await new Promise((r) => setImmediate(r));
  const bytesPerConnection = (memoryNow() - before) / n;
  for (let i = 0; i < warmup; i++) {
    const round = fleet.nextRound();
    for (const ws of sockets) ws.send(frame);
    await round;
  }
  const latencies: number[] = [];
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < writes; i++) {
    const t0 = performance.now();
    const round = fleet.nextRound();
    for (const ws of sockets) ws.send(frame);
    await round;
    latencies.push(performance.now() - t0);
  }
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  await fleet.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  latencies.sort((a, b) => a - b);
  return { eventsPerSecond: (n * writes) / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), bytesPerConnection, frame, cpuMicros: cpu.user + cpu.system, cpuUserMicros: cpu.user, cpuSystemMicros: cpu.system };
}

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const counts = config.quick ? [1, 200] : [1, 1_000, 10_000];
  const rows: ResultRow[] = [];
  for (const n of counts) {
    const writes = config.quick ? 30 : n >= 10_000 ? 50 : n === 1 ? 1000 : 300;
    const warmup = config.quick ? 3 : warmupRounds(n, writes);
    config.log(`realtime: ${n} subscriber(s), ${warmup} warm-up rounds, ${writes} writes`);
    const ours = await measureOurs(n, writes, warmup);
    const bare = await measureBareWs(n, writes, ours.frame, warmup);
    rows.push({
      group: 'realtime',
      workload: `write -> event, ${n} subscriber${n === 1 ? '' : 's'}`,
      unit: 'events/s',
      ours: ours.eventsPerSecond,
      referenceName: 'bare ws broadcast',
      reference: bare.eventsPerSecond,
      ratio: round3(ours.eventsPerSecond / bare.eventsPerSecond),
      target: null,
      pass: null,
      detail: {
        oursLatencyMs: { p50: round3(ours.p50), p99: round3(ours.p99) },
        bareLatencyMs: { p50: round3(bare.p50), p99: round3(bare.p99) },
        bytesPerIdleConnection: { ours: Math.round(ours.bytesPerConnection), bare: Math.round(bare.bytesPerConnection) },
        serverCpuMicrosPerEvent: { ours: round3(ours.cpuMicros / (n * writes)), bare: round3(bare.cpuMicros / (n * writes)) },
      },
      note: `latency to the last subscriber p50/p99 ${ours.p50.toFixed(2)}/${ours.p99.toFixed(2)} ms (bare ws ${bare.p50.toFixed(2)}/${bare.p99.toFixed(2)}); ` +
        `memory per idle connection ${Math.round(ours.bytesPerConnection / 1024)} KiB (bare ws ${Math.round(bare.bytesPerConnection / 1024)} KiB), client side included; ` +
        `server CPU per event ${(ours.cpuMicros / (n * writes)).toFixed(1)} µs (bare ws ${(bare.cpuMicros / (n * writes)).toFixed(1)})`,
    });
  }
  return rows;
}
