/**
 * `npm run bench` runs every benchmark group, prints one table and writes bench/results.json.
 * `npm run bench -- --quick` is a smoke run of under a minute (written to bench/results.quick.json,
 * so it never replaces the full figures). `--only=storage,rest` runs some groups (written to
 * bench/results.partial.json). The soak group runs only when named: `--only=soak` (3 minutes of hostile
 * load; SVC_SOAK_SECONDS=30 for a shorter one); a broken soak bound makes the run exit 1.
 *
 * Each group runs in its own child process (a fresh heap and JIT state, so one group's garbage or
 * deoptimisations do not bleed into the next), compiled the way the package ships (bench/build.ts:
 * esbuild without tsx's keepNames); rows come back over IPC. A group whose modules do not compile
 * yet reports a `skipped` row with the reason instead of failing the run. `--tsx` runs the groups
 * under tsx instead (debugging).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle, loadEsbuild } from './build.js';
import { type ChildMessage, childMain } from './child.js';
import type { BenchConfig } from './harness.js';
import { soakLimitMs } from './soak-settings.js';
import { type Group, type ResultRow, formatTable, machineInfo, skippedRow } from './report.js';

const GROUPS: readonly Group[] = ['storage', 'evaluator', 'rest', 'limiter', 'captcha', 'growth', 'redis', 'startup', 'files', 'realtime', 'postgres', 'postgres-rest', 'access', 'functions', 'soak'];
/** Groups only `--only` runs: the soak takes minutes by design (docs/performance.md, "Soak"). */
const OPT_IN: readonly Group[] = ['soak'];
const HERE = dirname(fileURLToPath(import.meta.url));

interface GroupModule {
  run(config: BenchConfig): Promise<ResultRow[]>;
}

function argValue(name: string): string | undefined {
  const prefix = `--${name}=`;
  const arg = process.argv.find((a) => a.startsWith(prefix));
  if (arg) return arg.slice(prefix.length);
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const quick = process.argv.includes('--quick');
const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** The child's entry: a bundle compiled like the published package, or (fallback) this file under tsx. */
async function childEntry(group: Group): Promise<{ file: string; args: string[]; execArgv: string[] } | { error: string }> {
  if (process.argv.includes('--tsx') || !(await loadEsbuild())) {
    return { file: fileURLToPath(import.meta.url), args: ['--child', group], execArgv: [...process.execArgv, '--expose-gc', ...(group === 'functions' ? ['--no-node-snapshot'] : [])] };
  }
  try {
    if (group === 'rest') await bundle('rest-server', { file: join(HERE, 'rest-server.ts') });
    if (group === 'postgres-rest') await bundle('postgres-rest-server', { file: join(HERE, 'postgres-rest-server.ts') });
    if (group === 'postgres-rest') await bundle('parse-rest-server', { file: join(HERE, 'parse-rest-server.ts') });
    if (group === 'startup') await bundle('startup-server', { file: join(HERE, 'startup-server.ts') });
    if (group === 'realtime') await bundle('realtime-fleet', { file: join(HERE, 'realtime-fleet.ts') });
    if (group === 'functions') await bundle('functions-server', { file: join(HERE, 'functions-server.ts') });
    if (group === 'soak') await bundle('soak-client', { file: join(HERE, 'soak-client.ts') });
    // The SQLite adapter and the functions sandbox start their workers from files next to their own module, as in dist/.
    await bundle('sqlite-reader-worker', { file: join(HERE, '../src/storage/sqlite/sqlite-reader-worker.ts') });
    await bundle('sqlite-checkpoint-worker', { file: join(HERE, '../src/storage/sqlite/sqlite-checkpoint-worker.ts') });
    await bundle('functions-sandbox-worker', { file: join(HERE, '../src/functions/sandbox/functions-sandbox-worker.ts') });
    const contents = `import { run } from './${group}.js';\nimport { childMain } from './child.js';\nawait childMain('${group}', run);\n`;
    // isolated-vm (the functions group's third runtime) needs a process started without Node's snapshot.
    return { file: await bundle(group, { contents }), args: [], execArgv: group === 'functions' ? ['--expose-gc', '--no-node-snapshot'] : ['--expose-gc'] };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { error: `does not compile yet: ${message.split('\n').slice(0, 3).join(' ').replace(/\s+/g, ' ').slice(0, 300)}` };
  }
}

async function runGroup(group: Group, limitMs: number): Promise<ResultRow[]> {
  const entry = await childEntry(group);
  if ('error' in entry) {
    log(`${group}: ${entry.error}`);
    return [skippedRow(group, `${group} group`, entry.error)];
  }
  return new Promise((resolve) => {
    const child: ChildProcess = fork(entry.file, [...entry.args, ...(quick ? ['--quick'] : [])], {
      execArgv: entry.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let rows: ResultRow[] | undefined;
    const timer = setTimeout(() => {
      log(`${group}: over its ${Math.round(limitMs / 1000)} s limit, stopping it`);
      child.kill('SIGKILL');
    }, limitMs);
    child.on('message', (message: ChildMessage) => (rows = message.rows));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(rows ?? [skippedRow(group, `${group} group`, `child exited (${signal ?? code}) without results`)]);
    });
  });
}

async function main(): Promise<void> {
  const only = argValue('only')?.split(',') as Group[] | undefined;
  const groups = only ? GROUPS.filter((g) => only.includes(g)) : GROUPS.filter((g) => !OPT_IN.includes(g));
  const machine = machineInfo();
  const startedAt = new Date();
  log(`${quick ? 'quick' : 'full'} run of ${groups.join(', ')} on ${String(machine.cpuModel)} x${String(machine.cores)}, node ${process.version}`);
  const rows: ResultRow[] = [];
  const durations: Record<string, number> = {};
  for (const group of groups) {
    const t0 = Date.now();
    rows.push(...(await runGroup(group, group === 'soak' ? soakLimitMs(quick) : quick ? 60_000 : 45 * 60_000)));
    durations[group] = Math.round((Date.now() - t0) / 100) / 10;
    log(`${group}: done in ${durations[group]} s`);
  }
  const table = formatTable(rows);
  process.stdout.write(`\n${table}\n\n`);
  const failed = rows.filter((r) => r.pass === false);
  process.stdout.write(
    `${rows.filter((r) => r.pass === true).length} pass, ${failed.length} below target, ` +
      `${rows.filter((r) => r.pass === null).length} informational/skipped\n`,
  );
  // Only a full run of every group replaces results.json (the figures docs/performance.md quotes).
  const out = join(HERE, quick ? 'results.quick.json' : only ? 'results.partial.json' : 'results.json');
  const report = {
    mode: quick ? 'quick' : 'full',
    groups,
    startedAt: startedAt.toISOString(),
    durationSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
    groupSeconds: durations,
    machine: { ...machine, loadAverageAtEnd: loadavg().map((n) => Math.round(n * 100) / 100) },
    method:
      'Each comparison forces one full GC, warms both sides up, then runs paired rounds (both sides back to back, alternating which goes first). ' +
      'A side is the median of its rounds; the ratio is the median of the per-round ratios. In-process rates are per CPU second of the ' +
      'benchmark process (reads, evaluator, limiter, captcha, growth); writes and REST use wall-clock time.',
    rows,
    table,
  };
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  log(`wrote ${out}`);
  // A broken soak bound is a failed run (the other groups' rows below target are figures to read).
  if (rows.some((r) => r.group === 'soak' && r.pass === false)) process.exitCode = 1;
}

if (process.argv.includes('--child')) {
  // Fallback without esbuild (or with --tsx): the child runs the TypeScript under tsx.
  const group = argValue('child') as Group;
  const mod = (await import(`./${group}.js`)) as GroupModule;
  await childMain(group, (config) => mod.run(config));
} else {
  await main();
}
