import type { RegexNode } from './syntax.js';

/**
 * An upper bound on the work of a backtracking engine (V8's irregexp) for a pattern, used to decide
 * per input length whether the native engine is provably cheap. The number of paths a backtracking
 * matcher explores from one start position is at most `c × (n+1)^deg` for a text of length `n`:
 * every unbounded quantifier over a single character tries at most n+1 counts, bounded ones
 * `max-min+1`, alternations sum their branches. A quantifier over something that itself branches
 * and repeats without bound (`(a+)+`, `(a|a)*`) is exponential: `c` is Infinity.
 */
export interface PathBound {
  readonly deg: number;
  readonly c: number;
}

const CAP = 1e15;
const cap = (v: number): number => (v > CAP ? Infinity : v);

export function pathBound(node: RegexNode): PathBound {
  switch (node.t) {
    case 'set':
    case 'assert':
      return { deg: 0, c: 1 };
    case 'seq':
      return node.items.reduce<PathBound>((acc, item) => {
        const b = pathBound(item);
        return { deg: acc.deg + b.deg, c: cap(acc.c * b.c) };
      }, { deg: 0, c: 1 });
    case 'alt':
      return node.options.reduce<PathBound>((acc, option) => {
        const b = pathBound(option);
        return { deg: Math.max(acc.deg, b.deg), c: cap(acc.c + b.c) };
      }, { deg: 0, c: 0 });
    case 'rep': {
      const inner = pathBound(node.node);
      const { min, max } = node;
      if (inner.deg === 0 && inner.c === 1) return max === Infinity ? { deg: 1, c: 1 } : { deg: 0, c: max - min + 1 };
      if (max === Infinity) return { deg: 0, c: Infinity };
      if (inner.deg === 0) {
        let total = 0;
        for (let j = min; j <= max && total !== Infinity; j++) total = cap(total + Math.pow(inner.c, j));
        return { deg: 0, c: total };
      }
      return { deg: inner.deg * max, c: cap(Math.pow(inner.c + 1, max)) };
    }
  }
}

/** Work allowed to the native engine on one text regardless of its length. */
const ABSOLUTE_BUDGET = 20_000;
/** The native engine may do this many times the work of the linear engine. */
const LINEAR_FACTOR = 16;

/**
 * The longest text on which the native engine's worst case stays within budget: at most
 * max(ABSOLUTE_BUDGET, LINEAR_FACTOR × the linear engine's work). -1 when never, Infinity when always.
 */
export function maxNativeLength(bound: PathBound, programSize: number): number {
  if (bound.c === Infinity) return -1;
  const m = Math.max(1, programSize);
  const cost = (n: number): number => Math.pow(n + 1, bound.deg + 1) * bound.c * (m + bound.deg * n);
  const ok = (n: number): boolean => cost(n) <= Math.max(ABSOLUTE_BUDGET, LINEAR_FACTOR * (n + 1) * m);
  if (bound.deg === 0 && bound.c * m <= LINEAR_FACTOR * m) return Infinity;
  if (!ok(0)) return -1;
  let lo = 0;
  let hi = 1;
  while (ok(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > 1 << 30) return Infinity;
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (ok(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
