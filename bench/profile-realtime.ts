/**
 * Profiling aid (not part of `npm run bench`): one side of one realtime row (n subscribers in a
 * child process, `writes` rounds each awaited to the last subscriber): svcbase's REST create ->
 * event, or (`bare`) the bare `ws` broadcast, so a `--cpu-prof` profile shows that side alone.
 * With `path`, svcbase's side also prints where its rounds' time goes (medians over the second half
 * of the rounds): when the event's first socket write starts, when `service.handle()` has answered,
 * and when the subscriber has the event, each from the round's start.
 *
 * @example npx tsx bench/build.ts bench/realtime-fleet.ts bench/profile-realtime.ts && node --cpu-prof --cpu-prof-dir=/tmp/prof bench/.build/profile-realtime.mjs 1 3000
 * @example node bench/.build/profile-realtime.mjs 1 20000 path
 */
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { type RoundTrace, measureBareWs, measureOurs } from './realtime.js';

const n = Number(process.argv[2] ?? 1);
const writes = Number(process.argv[3] ?? 2000);
const mode = process.argv[4];
const side = mode === 'bare' ? 'bare ws' : 'svcbase';
const frame = '{"op":"event","id":"1","action":"updateTable","tableName":"Bench","objectId":"aB3dE5gH7j","data":{"objectId":"aB3dE5gH7j","score":1,"name":"player 1","createdAt":"2026-11-28 12:00:00","updatedAt":"2026-11-28 12:00:00"}}';

/** Round phases in µs from each round's start, the event's first socket write among them (the only socket writes in a round are the event's). */
function pathTrace(): { trace: RoundTrace; report(): string } {
  const phases = { written: [] as number[], answered: [] as number[], delivered: [] as number[] };
  let start = 0;
  let written = 0;
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    written ||= performance.now();
    return write.apply(this, args);
  } as Socket['write'];
  const trace: RoundTrace = (phase) => {
    const now = performance.now();
    if (phase === 'start') [start, written] = [now, 0];
    else if (phase === 'answered') phases.answered.push(now - start);
    else phases.delivered.push(now - start), phases.written.push(written - start);
  };
  const median = (values: number[]) => {
    const late = values.slice(Math.floor(values.length / 2)).sort((a, b) => a - b);
    return `${(late[Math.floor(late.length / 2)]! * 1000).toFixed(1)} µs`;
  };
  return { trace, report: () => `; round medians: event written ${median(phases.written)}, write answered ${median(phases.answered)}, event delivered ${median(phases.delivered)}` };
}

const path = side === 'svcbase' && mode === 'path' ? pathTrace() : undefined;
const measured = side === 'svcbase' ? await measureOurs(n, writes, 0, path?.trace) : await measureBareWs(n, writes, frame);
const cpu = measured.cpuMicros / writes;
process.stdout.write(`${side}, ${n} subscriber(s), ${writes} writes: ${Math.round(measured.eventsPerSecond)} events/s, p50 ${measured.p50.toFixed(3)} ms, p99 ${measured.p99.toFixed(3)} ms, server CPU ${Math.round(cpu)} µs per write (user ${Math.round(measured.cpuUserMicros / writes)}, system ${Math.round(measured.cpuSystemMicros / writes)}; ${(cpu / n).toFixed(2)} per event)${path?.report() ?? ''}\n`);
