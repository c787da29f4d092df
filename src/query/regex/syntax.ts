import type { CharSet, ClassEscape } from './char-set.js';

/**
 * The regex subset `$regex` accepts, parsed into a small tree. It is JavaScript's syntax without
 * the unicode flag, minus every construct that is not a regular language or whose legacy meaning
 * is surprising: no backreferences, no lookaround, no `\1`-style octal, no unknown letter escapes,
 * no bare `{`. Such patterns are refused with a reason instead of being guessed at.
 */
export type RegexNode =
  | { readonly t: 'set'; readonly set: CharSet }
  | { readonly t: 'seq'; readonly items: readonly RegexNode[] }
  | { readonly t: 'alt'; readonly options: readonly RegexNode[] }
  | { readonly t: 'rep'; readonly node: RegexNode; readonly min: number; readonly max: number }
  | { readonly t: 'assert'; readonly kind: 'start' | 'end' | 'wordBoundary' | 'notWordBoundary' };

/** Why a pattern was refused: `syntax` (not a valid pattern) or `unsupported` (valid, not allowed). */
export class RegexSyntaxError extends Error {
  constructor(
    readonly reason: 'syntax' | 'unsupported',
    message: string,
  ) {
    super(message);
  }
}

/** Largest `{n,m}` bound accepted. */
export const MAX_REPEAT = 1000;

const LINE_TERMINATORS = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];

const single = (c: number): RegexNode => ({ t: 'set', set: { negate: false, ranges: [c, c], classes: [] } });

export function parseRegex(pattern: string, dotAll: boolean): RegexNode {
  let pos = 0;
  const peek = (): number => (pos < pattern.length ? pattern.charCodeAt(pos) : -1);
  const fail = (message: string): never => {
    throw new RegexSyntaxError('syntax', `${message} at ${pos}`);
  };
  const refuse = (message: string): never => {
    throw new RegexSyntaxError('unsupported', message);
  };

  function parseAlternation(): RegexNode {
    const options: RegexNode[] = [parseSequence()];
    while (peek() === 0x7c /* | */) {
      pos++;
      options.push(parseSequence());
    }
    return options.length === 1 ? options[0]! : { t: 'alt', options };
  }

  function parseSequence(): RegexNode {
    const items: RegexNode[] = [];
    for (;;) {
      const c = peek();
      if (c === -1 || c === 0x7c || c === 0x29 /* ) */) break;
      const atom = parseAtom();
      items.push(parseQuantifier(atom));
    }
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  }

  function readInt(): number | null {
    const start = pos;
    while (peek() >= 0x30 && peek() <= 0x39) pos++;
    if (pos === start) return null;
    const n = Number(pattern.slice(start, pos));
    if (n > MAX_REPEAT) refuse(`repetition bound ${n} is above ${MAX_REPEAT}`);
    return n;
  }

  /** Parses `{n}`, `{n,}`, `{n,m}` at pos (pos at `{`); restores pos and returns null otherwise. */
  function readBraces(): { min: number; max: number } | null {
    const start = pos;
    pos++;
    const min = readInt();
    if (min === null) return ((pos = start), null);
    let max = min;
    if (peek() === 0x2c /* , */) {
      pos++;
      const m = readInt();
      max = m === null ? Infinity : m;
    }
    if (peek() !== 0x7d /* } */) return ((pos = start), null);
    pos++;
    if (max < min) fail('numbers out of order in {} quantifier');
    return { min, max };
  }

  function parseQuantifier(atom: RegexNode): RegexNode {
    let min: number, max: number;
    const c = peek();
    if (c === 0x2a) (min = 0), (max = Infinity), pos++;
    else if (c === 0x2b) (min = 1), (max = Infinity), pos++;
    else if (c === 0x3f) (min = 0), (max = 1), pos++;
    else if (c === 0x7b) {
      const braces = readBraces();
      if (!braces) return refuse("a literal '{' must be escaped as '\\{'");
      ({ min, max } = braces);
    } else return atom;
    if (atom.t === 'assert') fail('nothing to repeat');
    if (peek() === 0x3f) pos++; // lazy: same set of matching strings
    const next = peek();
    if (next === 0x2a || next === 0x2b || next === 0x3f || next === 0x7b) fail('nothing to repeat');
    return { t: 'rep', node: atom, min, max };
  }

  function parseAtom(): RegexNode {
    const c = pattern.charCodeAt(pos);
    switch (c) {
      case 0x5e: // ^
        pos++;
        return { t: 'assert', kind: 'start' };
      case 0x24: // $
        pos++;
        return { t: 'assert', kind: 'end' };
      case 0x2e: // .
        pos++;
        return { t: 'set', set: { negate: true, ranges: dotAll ? [] : LINE_TERMINATORS, classes: [] } };
      case 0x28: // (
        return parseGroup();
      case 0x5b: // [
        return parseClass();
      case 0x5c: // \
        return parseAtomEscape();
      case 0x2a:
      case 0x2b:
      case 0x3f:
        return fail('nothing to repeat');
      case 0x7b:
        if (readBraces()) fail('nothing to repeat');
        return refuse("a literal '{' must be escaped as '\\{'");
      default:
        pos++;
        return single(c);
    }
  }

  function parseGroup(): RegexNode {
    pos++;
    if (peek() === 0x3f /* ? */) {
      const a = pattern.charCodeAt(pos + 1);
      const b = pattern.charCodeAt(pos + 2);
      if (a === 0x3a /* : */) pos += 2;
      else if (a === 0x3d || a === 0x21 || (a === 0x3c && (b === 0x3d || b === 0x21))) refuse('lookaround assertions are not supported');
      else if (a === 0x3c /* < */) {
        const end = pattern.indexOf('>', pos);
        if (end < 0 || !/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(pattern.slice(pos + 2, end))) fail('invalid group name');
        pos = end + 1;
      } else refuse('inline flags and other (? groups are not supported');
    }
    const inner = parseAlternation();
    if (peek() !== 0x29) fail('unterminated group');
    pos++;
    // A group may be quantified even around an assertion (`(^)+`), a bare assertion may not.
    return inner.t === 'assert' ? { t: 'seq', items: [inner] } : inner;
  }

  function hex(digits: number): number {
    const text = pattern.slice(pos, pos + digits);
    if (text.length !== digits || !/^[0-9A-Fa-f]+$/.test(text)) refuse('incomplete \\x or \\u escape');
    pos += digits;
    return parseInt(text, 16);
  }

  /** Escapes valid both outside and inside classes; returns a code unit or a class escape. */
  function parseCommonEscape(inClass: boolean): number | ClassEscape {
    const c = pattern.charCodeAt(pos++);
    if (Number.isNaN(c)) return fail('\\ at end of pattern');
    switch (c) {
      case 0x64: case 0x44: case 0x77: case 0x57: case 0x73: case 0x53: // d D w W s S
        return String.fromCharCode(c) as ClassEscape;
      case 0x6e: return 0x0a; // n
      case 0x72: return 0x0d; // r
      case 0x74: return 0x09; // t
      case 0x66: return 0x0c; // f
      case 0x76: return 0x0b; // v
      case 0x30: // 0
        if (peek() >= 0x30 && peek() <= 0x39) refuse('octal escapes are not supported');
        return 0;
      case 0x78: return hex(2); // x
      case 0x75: // u
        if (peek() === 0x7b) refuse('\\u{...} needs the unicode flag, which is not supported');
        return hex(4);
      case 0x63: { // c
        const l = peek();
        if (!((l >= 0x41 && l <= 0x5a) || (l >= 0x61 && l <= 0x7a))) refuse('\\c must be followed by a letter');
        pos++;
        return l % 32;
      }
      case 0x62: // b
        if (inClass) return 0x08;
        break;
    }
    if (c >= 0x31 && c <= 0x39) refuse('backreferences are not supported');
    if ((c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a)) refuse(`unknown escape \\${String.fromCharCode(c)}`);
    return c; // identity escape of punctuation, digits excluded above, or non-ASCII
  }

  function parseAtomEscape(): RegexNode {
    pos++;
    const c = peek();
    if (c === 0x62) return pos++, { t: 'assert', kind: 'wordBoundary' };
    if (c === 0x42) return pos++, { t: 'assert', kind: 'notWordBoundary' };
    if (c === 0x6b) refuse('named backreferences are not supported');
    const e = parseCommonEscape(false);
    return typeof e === 'number' ? single(e) : { t: 'set', set: { negate: false, ranges: [], classes: [e] } };
  }

  function parseClass(): RegexNode {
    pos++;
    let negate = false;
    if (peek() === 0x5e) (negate = true), pos++;
    const ranges: number[] = [];
    const classes: ClassEscape[] = [];
    const classAtom = (): number | ClassEscape => {
      const c = peek();
      if (c === -1) return fail('unterminated character class');
      pos++;
      if (c !== 0x5c) return c;
      if (peek() === 0x2d) return pos++, 0x2d; // \-
      if (peek() === 0x42) refuse('\\B is not allowed in a character class');
      return parseCommonEscape(true);
    };
    while (peek() !== 0x5d /* ] */) {
      const lo = classAtom();
      if (peek() === 0x2d && pattern.charCodeAt(pos + 1) !== 0x5d && pos + 1 < pattern.length) {
        pos++;
        const hi = classAtom();
        if (typeof lo !== 'number' || typeof hi !== 'number') refuse('a class escape cannot bound a range');
        if ((lo as number) > (hi as number)) fail('range out of order in character class');
        ranges.push(lo as number, hi as number);
      } else if (typeof lo === 'number') ranges.push(lo, lo);
      else classes.push(lo);
    }
    pos++;
    return { t: 'set', set: { negate, ranges, classes } };
  }

  const tree = parseAlternation();
  if (pos < pattern.length) fail("unmatched ')'");
  return tree;
}
