/**
 * Benchmark results: rows, the machine description and the printed table (Markdown, pasted into
 * docs/performance.md).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { type Comparison, round3, spread } from './harness.js';

export type Group = 'storage' | 'evaluator' | 'rest' | 'limiter' | 'captcha' | 'growth' | 'redis' | 'startup' | 'files' | 'realtime' | 'postgres' | 'postgres-rest' | 'access' | 'functions' | 'soak';

/** One line of the result table. */
export interface ResultRow {
  readonly group: Group;
  readonly workload: string;
  /** Unit of `ours` and `reference` (`ops/s`, `req/s`, `images/s`). */
  readonly unit: string;
  readonly ours: number;
  /** What `reference` is: `raw better-sqlite3`, `mingo`, `node:http`, ... */
  readonly referenceName: string;
  readonly reference: number | null;
  /** ours / reference (median of paired per-round ratios), or the group's own ratio (growth). */
  readonly ratio: number | null;
  /** Minimal ratio that passes (the maximal one when `atMost`); null = informational. */
  readonly target: number | null;
  /** The ratio passes at or below `target` (a latency or memory bound), not at or above it. */
  readonly atMost?: boolean;
  readonly pass: boolean | null;
  /** Extra figures: per-side spread, p99 latency, sizes, SQL, ... */
  readonly detail?: Readonly<Record<string, unknown>>;
  readonly note?: string;
}

/** A comparison row with its pass/fail against a minimal ratio (null target = informational). */
export function comparisonRow(
  group: Group,
  workload: string,
  referenceName: string,
  result: Comparison,
  target: number | null,
  extra: { unit?: string; detail?: Record<string, unknown>; note?: string } = {},
): ResultRow {
  return {
    group,
    workload,
    unit: extra.unit ?? 'ops/s',
    ours: result.ours,
    referenceName,
    reference: result.reference,
    ratio: result.ratio,
    target,
    pass: target === null ? null : result.ratio >= target,
    detail: {
      oursSpread: round3(spread(result.oursRounds)),
      referenceSpread: round3(spread(result.referenceRounds)),
      oursRounds: result.oursRounds.map(Math.round),
      referenceRounds: result.referenceRounds.map(Math.round),
      wallClock: { ours: Math.round(result.oursWall), reference: Math.round(result.referenceWall), ratio: round3(result.wallRatio) },
      ...extra.detail,
    },
    ...(extra.note ? { note: extra.note } : {}),
  };
}

/** A row for a group that could not run (a module still landing, a missing optional dependency). */
export function skippedRow(group: Group, workload: string, reason: string): ResultRow {
  return { group, workload, unit: '', ours: Number.NaN, referenceName: '', reference: null, ratio: null, target: null, pass: null, note: `skipped: ${reason}` };
}

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

/** The installed version of a package (from its package.json), or `?`. */
export function packageVersion(name: string): string {
  try {
    return (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return '?';
  }
}

/** The SQLite library better-sqlite3 was built with, or `?`. */
function sqliteVersion(): string {
  try {
    type Db = { prepare(sql: string): { get(): unknown }; close(): void };
    const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Db;
    const db = new Database(':memory:');
    const row = db.prepare('SELECT sqlite_version() AS v').get() as { v: string };
    db.close();
    return row.v;
  } catch {
    return '?';
  }
}

/** The machine and software the figures were measured on. */
export function machineInfo(): Record<string, unknown> {
  const cpu = cpus();
  return {
    cpuModel: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: `${platform()} ${release()}`,
    node: process.version,
    v8: process.versions.v8,
    sqlite: sqliteVersion(),
    loadAverageAtStart: loadavg().map((n) => Math.round(n * 100) / 100),
    packages: Object.fromEntries(
      ['better-sqlite3', 'mingo', 'rate-limiter-flexible', 'svg-captcha', 'autocannon', '@napi-rs/canvas'].map((p) => [p, packageVersion(p)]),
    ),
  };
}

/** 12345.6 -> "12,346"; small values keep 2 significant decimals. */
export function formatOps(n: number | null): string {
  if (n === null || Number.isNaN(n)) return '-';
  if (n >= 100) return Math.round(n).toLocaleString('en-US');
  if (n >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function formatRatio(r: number | null): string {
  return r === null || Number.isNaN(r) ? '-' : `${r.toFixed(2)}x`;
}

function resultText(row: ResultRow): string {
  if (row.note?.startsWith('skipped')) return 'skipped';
  if (row.pass === null) return 'info';
  return row.pass ? 'pass' : 'FAIL';
}

/** The result table as Markdown (printed, and pasted into docs/performance.md). */
export function formatTable(rows: readonly ResultRow[]): string {
  const header = ['group', 'workload', 'ours', 'reference', 'ref ops', 'ratio', 'target', 'result'];
  const lines = rows.map((r) => [
    r.group,
    r.workload,
    `${formatOps(r.ours)}${r.unit ? ` ${r.unit}` : ''}`,
    r.referenceName,
    formatOps(r.reference),
    formatRatio(r.ratio),
    r.target === null ? 'info' : `${r.atMost ? '<=' : '>='} ${r.target}x`,
    resultText(r),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [fmt(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(fmt)].join('\n');
}
