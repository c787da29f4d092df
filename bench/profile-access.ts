/**
 * Profiling aid (not part of `npm run bench`): builds the access group's world (bench/access.ts) and
 * runs one of its workloads for the user with 3 roles or for the master key, printing its rate per
 * second of wall-clock and of CPU time. With a fourth argument, a CPU profile of the timed loop alone
 * (not the setup) is written to that file (open it in Chrome's DevTools).
 *
 * @example npx tsx bench/build.ts bench/profile-access.ts && node bench/.build/profile-access.mjs 2 member 5 /tmp/count-member.cpuprofile
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import { accessWorld } from './access.js';

const index = Number(process.argv[2] ?? 2);
const side = process.argv[3] === 'master' ? 'master' : 'member';
const seconds = Math.min(60, Number(process.argv[4] ?? 5));
const profileTo = process.argv[5];
const world = await accessWorld();
try {
  const [label, query] = world.workloads[index]!;
  const caller = side === 'master' ? world.master : world.member;
  for (let i = 0; i < 200; i++) await world.records.list(caller, 'Post', new URLSearchParams(query(i)));
  const session = profileTo ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const start = performance.now();
  const cpu = process.cpuUsage();
  let done = 0;
  while (performance.now() - start < seconds * 1000) await world.records.list(caller, 'Post', new URLSearchParams(query(done++)));
  const used = process.cpuUsage(cpu);
  if (session && profileTo) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileTo, JSON.stringify(profile));
    session.disconnect();
  }
  process.stdout.write(`${label}, ${side}: ${Math.round(done / seconds)} finds/s, ${Math.round(done / ((used.user + used.system) / 1e6))} per CPU second\n`);
} finally {
  await world.close();
}
