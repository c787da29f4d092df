import { compileCharSet, isLineTerminator, isWordChar, type CharTest } from './char-set.js';
import type { RegexNode } from './syntax.js';

/**
 * A Thompson NFA over UTF-16 code units, simulated breadth-first (every live state advances in
 * lock step), so a test costs O(text length × program size) whatever the pattern: no backtracking,
 * no catastrophic inputs.
 */

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;

const A_START = 0;
const A_END = 1;
const A_WORD = 2;
const A_NOT_WORD = 3;

/** Largest program accepted (states after expanding counted repetition). */
export const MAX_STATES = 20_000;

export class ProgramTooLargeError extends Error {}

export interface NfaProgram {
  test(text: string): boolean;
  readonly size: number;
}

export function compileNfa(tree: RegexNode, flags: { ignoreCase: boolean; multiline: boolean }): NfaProgram {
  const op: number[] = [];
  const x: number[] = [];
  const y: number[] = [];
  const tests: Array<CharTest | null> = [];

  const emit = (o: number, a = -1, b = -1, t: CharTest | null = null): number => {
    if (op.length >= MAX_STATES) throw new ProgramTooLargeError('pattern expands to too many states');
    op.push(o), x.push(a), y.push(b), tests.push(t);
    return op.length - 1;
  };

  /** Emits `node` so that it continues at `next`; returns its entry state. Built back to front. */
  function build(node: RegexNode, next: number): number {
    switch (node.t) {
      case 'set':
        return emit(CHAR, next, -1, compileCharSet(node.set, flags.ignoreCase));
      case 'assert': {
        const kind = { start: A_START, end: A_END, wordBoundary: A_WORD, notWordBoundary: A_NOT_WORD }[node.kind];
        return emit(ASSERT, next, kind);
      }
      case 'seq': {
        let entry = next;
        for (let i = node.items.length - 1; i >= 0; i--) entry = build(node.items[i]!, entry);
        return entry;
      }
      case 'alt': {
        let entry = build(node.options[node.options.length - 1]!, next);
        for (let i = node.options.length - 2; i >= 0; i--) entry = emit(SPLIT, build(node.options[i]!, next), entry);
        return entry;
      }
      case 'rep': {
        let entry = next;
        if (node.max === Infinity) {
          const loop = emit(SPLIT, -1, next);
          x[loop] = build(node.node, loop);
          entry = loop;
        } else {
          for (let i = node.min; i < node.max; i++) entry = emit(SPLIT, build(node.node, entry), next);
        }
        for (let i = 0; i < node.min; i++) entry = build(node.node, entry);
        return entry;
      }
    }
  }

  const match = emit(MATCH);
  const start = build(tree, match);
  return simulate(Int8Array.from(op), Int32Array.from(x), Int32Array.from(y), tests, start, flags.multiline);
}

function simulate(
  op: Int8Array,
  x: Int32Array,
  y: Int32Array,
  tests: ReadonlyArray<CharTest | null>,
  start: number,
  multiline: boolean,
): NfaProgram {
  const n = op.length;
  let cur = new Int32Array(n);
  let nxt = new Int32Array(n);
  const mark = new Int32Array(n);
  const stack = new Int32Array(n * 2 + 2);
  let generation = 0;
  let text = '';

  /** Adds the closure of `s` at text position `p` to `list` (length in `len`); true on MATCH. */
  function add(list: Int32Array, lenRef: { len: number }, s: number, p: number): boolean {
    let sp = 0;
    stack[sp++] = s;
    while (sp > 0) {
      const st = stack[--sp]!;
      if (mark[st] === generation) continue;
      mark[st] = generation;
      switch (op[st]) {
        case MATCH:
          return true;
        case CHAR:
          list[lenRef.len++] = st;
          break;
        case JMP:
          stack[sp++] = x[st]!;
          break;
        case SPLIT:
          stack[sp++] = y[st]!;
          stack[sp++] = x[st]!;
          break;
        case ASSERT:
          if (assertion(y[st]!, p)) stack[sp++] = x[st]!;
          break;
      }
    }
    return false;
  }

  function assertion(kind: number, p: number): boolean {
    const prev = p > 0 ? text.charCodeAt(p - 1) : -1;
    const next = p < text.length ? text.charCodeAt(p) : -1;
    switch (kind) {
      case A_START:
        return p === 0 || (multiline && isLineTerminator(prev));
      case A_END:
        return p === text.length || (multiline && isLineTerminator(next));
      case A_WORD:
        return (prev >= 0 && isWordChar(prev)) !== (next >= 0 && isWordChar(next));
      default:
        return (prev >= 0 && isWordChar(prev)) === (next >= 0 && isWordChar(next));
    }
  }

  const curLen = { len: 0 };
  const nxtLen = { len: 0 };

  return {
    size: n,
    test(input: string): boolean {
      text = input;
      curLen.len = 0;
      if (generation > 0x3fffffff - input.length) {
        mark.fill(0);
        generation = 0;
      }
      generation++;
      for (let i = 0; ; i++) {
        if (add(cur, curLen, start, i)) return true;
        if (i === input.length) return false;
        const c = input.charCodeAt(i);
        generation++;
        nxtLen.len = 0;
        for (let k = 0; k < curLen.len; k++) {
          const st = cur[k]!;
          if (tests[st]!(c) && add(nxt, nxtLen, x[st]!, i + 1)) return true;
        }
        const t = cur;
        cur = nxt;
        nxt = t;
        curLen.len = nxtLen.len;
      }
    },
  };
}
