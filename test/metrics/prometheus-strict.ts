import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*",?)*\})? (-?[0-9.e+-]+|\+Inf|-Inf|NaN)$/;

/** One sample line: its full name (`_bucket`, `_sum`, `_count` kept), labels and value. */
export interface StrictSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  /** What parse-prometheus-text-format makes of it (prom2json's shape). */
  readonly families: readonly ParsedFamily[];
  /** Every sample, read by the strict pass. */
  readonly samples: readonly StrictSample[];
}

const unescape = (value: string) => value.replace(/\\(["\\n])/g, (_m, c: string) => (c === 'n' ? '\n' : c));

/**
 * Parses `/metrics` with parse-prometheus-text-format, and again with a strict pass of the rules the
 * parser is lenient about: every line a comment or a well-formed sample, each family's `# HELP` and
 * `# TYPE` once and before its samples, its samples together, each histogram's buckets cumulative and
 * ending at `+Inf` equal to its `_count`, and a newline at the end. Counters and gauges must read the
 * same both ways. (The parser flattens a histogram family into one series, losing its labels, so the
 * histograms are checked on the strict pass only.)
 */
export function parseStrictly(text: string): Exposition {
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const typed = new Map<string, string>();
  const finished = new Set<string>();
  const samples: StrictSample[] = [];
  let current: string | undefined;
  for (const [index, line] of text.slice(0, -1).split('\n').entries()) {
    const where = `line ${index + 1}: ${line}`;
    if (line.startsWith('# HELP ') || line.startsWith('# TYPE ')) {
      const [, kind, name, rest] = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line) ?? [];
      if (!name || !NAME.test(name)) throw new Error(`bad metric name, ${where}`);
      if (finished.has(name) || (current !== name && typed.has(name))) throw new Error(`family ${name} is split, ${where}`);
      if (current !== undefined && current !== name) finished.add(current);
      current = name;
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest ?? '')) throw new Error(`bad type, ${where}`);
        typed.set(name, rest!);
      }
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample, ${where}`);
    const family = current ?? '';
    const base = typed.get(family) === 'histogram' ? match[1]!.replace(/_(bucket|sum|count)$/, '') : match[1]!;
    if (base !== family || !typed.has(family)) throw new Error(`sample outside its family (after # TYPE), ${where}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      if (Object.hasOwn(labels, key!)) throw new Error(`label ${key} twice, ${where}`);
      labels[key!] = unescape(value!);
    }
    const raw = match[3]!;
    samples.push({ name: match[1]!, labels, value: raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : Number(raw) });
  }
  for (const [family, type] of typed) {
    if (type !== 'histogram') continue;
    const series = new Map<string, StrictSample[]>();
    for (const sample of samples) {
      if (sample.name !== `${family}_bucket`) continue;
      const { le, ...rest } = sample.labels;
      if (le === undefined) throw new Error(`${family}: a bucket without le`);
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), sample]);
    }
    for (const [key, buckets] of series) {
      if (buckets.at(-1)!.labels['le'] !== '+Inf') throw new Error(`${family}${key}: the last bucket is not +Inf`);
      buckets.reduce((previous, bucket) => {
        if (bucket.value < previous) throw new Error(`${family}${key}: buckets are not cumulative`);
        return bucket.value;
      }, 0);
      const count = samples.find((s) => s.name === `${family}_count` && JSON.stringify(s.labels) === key);
      if (count?.value !== buckets.at(-1)!.value) throw new Error(`${family}${key}: +Inf bucket ${buckets.at(-1)!.value} is not _count ${count?.value}`);
    }
  }
  const families = parsePrometheusTextFormat(text);
  for (const family of families) {
    if (family.type !== 'COUNTER' && family.type !== 'GAUGE') continue;
    for (const metric of family.metrics) {
      const strict = samples.find((s) => s.name === family.name && JSON.stringify(s.labels) === JSON.stringify(metric.labels ?? {}));
      if (strict?.value !== Number(metric.value)) throw new Error(`${family.name}${JSON.stringify(metric.labels)}: the parser read ${metric.value}, the strict pass ${strict?.value}`);
    }
  }
  if (families.reduce((n, f) => n + (f.type === 'COUNTER' || f.type === 'GAUGE' ? f.metrics.length : 0), 0) !== samples.filter((s) => typed.get(s.name) === 'counter' || typed.get(s.name) === 'gauge').length) {
    throw new Error('the parser and the strict pass read a different number of counter and gauge samples');
  }
  return { families, samples };
}

/** The value of the sample `name` whose labels include `labels` (a histogram: its `_count`), or undefined. */
export function sampleOf(exposition: Exposition, name: string, labels: Record<string, string>): number | undefined {
  const matches = (sample: StrictSample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value);
  return (exposition.samples.find((s) => s.name === name && matches(s)) ?? exposition.samples.find((s) => s.name === `${name}_count` && matches(s)))?.value;
}
