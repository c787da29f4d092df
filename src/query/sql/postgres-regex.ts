import { svcError } from '../../core/errors.js';
import { compileCharSet, type CharSet } from '../regex/char-set.js';
import { compileSafeRegex } from '../regex/safe-regex.js';
import { parseRegex, type RegexNode } from '../regex/syntax.js';
import { param, raw, sql, type Sql } from './fragment.js';

/**
 * `$regex` on PostgreSQL with the same meaning as the safe regex of the other backends (D64). The
 * pattern is validated by `compileSafeRegex` (same refusals, same codes), parsed into the subset's
 * tree, and rewritten as a POSIX ARE that spells everything out, so nothing depends on the
 * server's locale or regex flavour:
 *
 * - every character set becomes explicit code ranges, computed with the evaluator's own set test
 *   (classes `\d\w\s`, negation, ECMAScript ignore-case folding included), so `~` runs case-sensitive;
 * - `^`/`$` are string anchors, or under `m` lookbehind/lookahead on the four line terminators;
 *   `\b`/`\B` are lookaround over `[0-9A-Za-z_]`; repetitions past 255 (ARE's limit) are chained.
 * - JavaScript matches UTF-16 code units, PostgreSQL code points. When a set of the pattern can
 *   match a surrogate unit ('.', negated sets, \D ...) and the text holds a character outside the
 *   BMP, the text is rewritten first, each such character as two code points of plane 15
 *   (U+F0000 + unit - 0xD800), and the pattern's surrogate units map the same way: the match then
 *   walks the same units as JavaScript. Texts of BMP characters only (nearly all) skip the rewrite.
 */

const HIGH_PLANE = 0xf0000;
const WORD = '[0-9A-Z_a-z]';
const TERMINATOR = '[\\u000a\\u000d\\u2028\\u2029]';
/** ARE repetition bounds stop at 255 (RE_DUP_MAX). */
const MAX_BOUND = 255;

interface Translation {
  readonly are: string;
  /** A set may match a surrogate unit: texts with astral characters need the unit rewrite. */
  readonly unitSensitive: boolean;
}

const cache = new Map<string, Translation>();

function escape(cp: number): string {
  return cp <= 0xffff ? `\\u${cp.toString(16).padStart(4, '0')}` : `\\U${cp.toString(16).padStart(8, '0')}`;
}

/** A code unit as the code point it has in the rewritten text (surrogates move to plane 15). */
function unitPoint(unit: number): number {
  return unit >= 0xd800 && unit <= 0xdfff ? HIGH_PLANE + (unit - 0xd800) : unit;
}

function setToAre(set: CharSet, ignoreCase: boolean, state: { unitSensitive: boolean }): string {
  const test = compileCharSet(set, ignoreCase);
  const parts: string[] = [];
  let start = -1;
  const flush = (end: number) => {
    if (start < 0) return;
    // Split at the surrogate block so each part maps to one contiguous range.
    const pieces: Array<[number, number]> = [];
    let lo = start;
    for (const edge of [0xd800, 0xe000]) {
      if (lo < edge && end >= edge) {
        pieces.push([lo, edge - 1]);
        lo = edge;
      }
    }
    pieces.push([lo, end]);
    for (const [a, b] of pieces) {
      if (a >= 0xd800 && a <= 0xdfff) state.unitSensitive = true;
      const pa = unitPoint(a);
      const pb = unitPoint(b);
      parts.push(pa === pb ? escape(pa) : `${escape(pa)}-${escape(pb)}`);
    }
    start = -1;
  };
  for (let c = 0; c <= 0xffff; c++) {
    if (test(c)) {
      if (start < 0) start = c;
    } else flush(c - 1);
  }
  flush(0xffff);
  // U+0000 never occurs in PostgreSQL text (D63): an empty set is one that can never match.
  return parts.length === 0 ? '[\\u0000]' : `[${parts.join('')}]`;
}

function repeat(body: string, min: number, max: number): string {
  const group = `(?:${body})`;
  const out: string[] = [];
  let needed = min;
  while (needed > MAX_BOUND) {
    out.push(`${group}{${MAX_BOUND}}`);
    needed -= MAX_BOUND;
  }
  if (max === Infinity) out.push(needed === 0 ? `${group}*` : needed === 1 ? `${group}+` : `${group}{${needed},}`);
  else {
    let optional = max - min;
    if (needed > 0 || optional === 0) out.push(`${group}{${needed}}`);
    while (optional > MAX_BOUND) {
      out.push(`${group}{0,${MAX_BOUND}}`);
      optional -= MAX_BOUND;
    }
    if (optional > 0) out.push(`${group}{0,${optional}}`);
  }
  return out.join('');
}

function nodeToAre(node: RegexNode, flags: { ignoreCase: boolean; multiline: boolean }, state: { unitSensitive: boolean }): string {
  switch (node.t) {
    case 'set':
      return setToAre(node.set, flags.ignoreCase, state);
    case 'seq':
      return node.items.map((n) => nodeToAre(n, flags, state)).join('');
    case 'alt':
      return `(?:${node.options.map((n) => nodeToAre(n, flags, state)).join('|')})`;
    case 'rep':
      return repeat(nodeToAre(node.node, flags, state), node.min, node.max);
    case 'assert':
      switch (node.kind) {
        case 'start':
          return flags.multiline ? `(?:^|(?<=${TERMINATOR}))` : '^';
        case 'end':
          return flags.multiline ? `(?:$|(?=${TERMINATOR}))` : '$';
        case 'wordBoundary':
          return `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;
        case 'notWordBoundary':
          return `(?:(?<=${WORD})(?=${WORD})|(?<!${WORD})(?!${WORD}))`;
      }
  }
}

/** The ARE of a safe-regex pattern (validated with the same refusals as the other backends). */
export function translateRegex(pattern: string, flags: string): Translation {
  const key = `${flags}/${pattern}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const safe = compileSafeRegex(pattern, flags); // throws 11021/102 exactly as elsewhere
  const tree = parseRegex(pattern, safe.flags.includes('s'));
  const state = { unitSensitive: false };
  const are = `(?:${nodeToAre(tree, { ignoreCase: safe.flags.includes('i'), multiline: safe.flags.includes('m') }, state)})`;
  if (are.length > 200_000) throw svcError('regexUnsafe', '$regex: too large for PostgreSQL once spelled out');
  const out = { are, unitSensitive: state.unitSensitive };
  if (cache.size >= 256) cache.delete(cache.keys().next().value as string);
  cache.set(key, out);
  return out;
}

/** `text` with each character outside the BMP as two plane-15 code points (its UTF-16 units, moved). */
function asUnits(text: Sql): Sql {
  return sql`(SELECT string_agg(CASE WHEN ascii(u.c) > 65535 THEN chr(${raw(String(HIGH_PLANE))} + ((ascii(u.c) - 65536) >> 10)) || chr(${raw(String(HIGH_PLANE + 0x400))} + ((ascii(u.c) - 65536) & 1023)) ELSE u.c END, '' ORDER BY u.n) FROM regexp_split_to_table(${text}, '') WITH ORDINALITY AS u(c, n))`;
}

/** The PostgreSQL condition: `text` matches the safe regex. */
export function postgresRegex(text: Sql, pattern: string, flags: string): Sql {
  const { are, unitSensitive } = translateRegex(pattern, flags);
  const p = param(are);
  if (!unitSensitive) return sql`(${text} ~ ${p})`;
  return sql`(CASE WHEN ${text} ~ '[\\U00010000-\\U0010ffff]' THEN ${asUnits(text)} ~ ${p} ELSE ${text} ~ ${p} END)`;
}
