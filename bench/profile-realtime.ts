/**
 * Profiling aid (not part of `npm run bench`): one side of one realtime row (n subscribers in a
 * child process, `writes` rounds each awaited to the last subscriber): svcbase's REST create ->
 * event, or (`bare`) the bare `ws` broadcast, so a `--cpu-prof` profile shows that side alone.
 *
 * @example npx tsx bench/build.ts bench/realtime-fleet.ts bench/profile-realtime.ts && node --cpu-prof --cpu-prof-dir=/tmp/prof bench/.build/profile-realtime.mjs 1 3000
 */
import { measureBareWs, measureOurs } from './realtime.js';

const n = Number(process.argv[2] ?? 1);
const writes = Number(process.argv[3] ?? 2000);
const side = process.argv[4] === 'bare' ? 'bare ws' : 'svcbase';
const frame = '{"op":"event","id":"1","action":"updateTable","tableName":"Bench","objectId":"aB3dE5gH7j","data":{"objectId":"aB3dE5gH7j","score":1,"name":"player 1","createdAt":"2026-11-28 12:00:00","updatedAt":"2026-11-28 12:00:00"}}';
const measured = side === 'svcbase' ? await measureOurs(n, writes) : await measureBareWs(n, writes, frame);
const cpu = measured.cpuMicros / writes;
process.stdout.write(`${side}, ${n} subscriber(s), ${writes} writes: ${Math.round(measured.eventsPerSecond)} events/s, p50 ${measured.p50.toFixed(3)} ms, p99 ${measured.p99.toFixed(3)} ms, server CPU ${Math.round(cpu)} µs per write (user ${Math.round(measured.cpuUserMicros / writes)}, system ${Math.round(measured.cpuSystemMicros / writes)}; ${(cpu / n).toFixed(2)} per event)\n`);
