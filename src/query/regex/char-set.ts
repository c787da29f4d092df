/**
 * Character sets of the regex subset, over UTF-16 code units (JavaScript's non-unicode mode), with
 * the ECMAScript ignore-case rule (`Canonicalize`): a character matches a set when some member of
 * the set has the same canonical form.
 */

/** `d`, `w`, `s` and their negations `D`, `W`, `S`. */
export type ClassEscape = 'd' | 'D' | 'w' | 'W' | 's' | 'S';

export interface CharSet {
  readonly negate: boolean;
  /** Inclusive code-unit ranges as flat pairs `[lo0, hi0, lo1, hi1, ...]`. */
  readonly ranges: readonly number[];
  readonly classes: readonly ClassEscape[];
}

export type CharTest = (c: number) => boolean;

const SPACE_RANGES = [
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f,
  0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
];

export function isWordChar(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f;
}

export function isLineTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}

function inRanges(ranges: readonly number[], c: number): boolean {
  for (let i = 0; i < ranges.length; i += 2) if (c >= ranges[i]! && c <= ranges[i + 1]!) return true;
  return false;
}

function classTest(k: ClassEscape, c: number): boolean {
  switch (k) {
    case 'd':
      return c >= 0x30 && c <= 0x39;
    case 'D':
      return !(c >= 0x30 && c <= 0x39);
    case 'w':
      return isWordChar(c);
    case 'W':
      return !isWordChar(c);
    case 's':
      return inRanges(SPACE_RANGES, c);
    case 'S':
      return !inRanges(SPACE_RANGES, c);
  }
}

let canonTable: Uint16Array | null = null;
let preimageOffsets: Int32Array | null = null;
let preimageList: Uint16Array | null = null;

/** ECMAScript Canonicalize(ch) for non-unicode ignoreCase, as a table over all code units. */
function canonicalTable(): Uint16Array {
  if (canonTable) return canonTable;
  const table = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) {
    const upper = String.fromCharCode(c).toUpperCase();
    let k = c;
    if (upper.length === 1) {
      const u = upper.charCodeAt(0);
      k = c >= 128 && u < 128 ? c : u;
    }
    table[c] = k;
  }
  // Preimages: every code unit grouped by its canonical form (CSR layout).
  const counts = new Int32Array(0x10001);
  for (let c = 0; c < 0x10000; c++) counts[table[c]! + 1]!++;
  for (let k = 0; k < 0x10000; k++) counts[k + 1]! += counts[k]!;
  const list = new Uint16Array(0x10000);
  const fill = counts.slice(0, 0x10000);
  for (let c = 0; c < 0x10000; c++) list[fill[table[c]!]!++] = c;
  canonTable = table;
  preimageOffsets = counts;
  preimageList = list;
  return table;
}

/** Canonical form of a code unit under ignoreCase. */
export function canonicalize(c: number): number {
  return canonicalTable()[c]!;
}

/** Compiles a set to a membership test. */
export function compileCharSet(set: CharSet, ignoreCase: boolean): CharTest {
  const { ranges, classes } = set;
  const raw: CharTest =
    classes.length === 0
      ? (c) => inRanges(ranges, c)
      : (c) => {
          if (inRanges(ranges, c)) return true;
          for (const k of classes) if (classTest(k, c)) return true;
          return false;
        };
  let member = raw;
  if (ignoreCase) {
    const table = canonicalTable();
    const offsets = preimageOffsets!;
    const list = preimageList!;
    member = (c) => {
      if (raw(c)) return true;
      const k = table[c]!;
      for (let i = offsets[k]!, end = offsets[k + 1]!; i < end; i++) if (raw(list[i]!)) return true;
      return false;
    };
  }
  return set.negate ? (c) => !member(c) : member;
}
