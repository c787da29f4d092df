import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { maxNativeLength, pathBound } from '../../src/query/regex/cost.js';
import { compileNfa } from '../../src/query/regex/nfa.js';
import { compileSafeRegex } from '../../src/query/regex/safe-regex.js';
import { parseRegex } from '../../src/query/regex/syntax.js';

const RUNS = Number(process.env.FC_RUNS ?? 250) * 4;

/** Random patterns inside the supported subset. */
const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string; atom: string }>((tie) => ({
  atom: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom('a', 'b', 'A', 'é', 'É', 'K', 'k', 'ſ', '1', ' ', '.', '\\d', '\\w', '\\s', '\\W', '[ab]', '[^a]', '[a-c]', '[A-Z\\d]', '[é]', '\\.', '\\n', '\\u00e9', '\\x41'),
    fc.constantFrom('^', '$', '\\b', '\\B'),
    tie('re').map((r) => `(${r})`),
    tie('re').map((r) => `(?:${r})`),
  ),
  re: fc
    .array(
      fc.tuple(tie('atom'), fc.constantFrom('', '', '', '*', '+', '?', '{1,2}', '{2}', '{0,3}', '*?', '{1,}')),
      { minLength: 1, maxLength: 4 },
    )
    .chain((items) =>
      fc.tuple(fc.constant(items), fc.boolean()).map(([xs, alt]) => {
        const text = xs.map(([a, q]) => (/^(\^|\$|\\b|\\B)$/.test(a) ? a : a + q)).join('');
        return alt ? `${text}|${xs[0]![0]}` : text;
      }),
    ),
})).re;

/** Whether V8 (the reference) can afford the pattern on a text of length n: it backtracks too. */
function affordable(p: string, n: number): boolean {
  const b = pathBound(parseRegex(p, false));
  if (b.c === Infinity) return n <= 3;
  return Math.pow(n + 1, b.deg + 1) * b.c <= 1e7;
}

const text = fc.string({ unit: fc.constantFrom('a', 'b', 'A', 'B', 'é', 'É', 'k', 'K', 'ſ', '1', ' ', '\n', '_', '.', 'x'), maxLength: 16 });
const flags = fc.constantFrom('', 'i', 'm', 's', 'ims');

describe('regex subset: the linear-time NFA agrees with V8', () => {
  it(`on ${RUNS} random patterns and texts`, () => {
    fc.assert(
      fc.property(pattern, flags, fc.array(text, { minLength: 1, maxLength: 5 }), (p, f, texts) => {
        const native = new RegExp(p, f);
        const nfa = compileNfa(parseRegex(p, f.includes('s')), { ignoreCase: f.includes('i'), multiline: f.includes('m') });
        for (const full of texts) {
          const t = affordable(p, full.length) ? full : full.slice(0, 3);
          expect([p, f, t, nfa.test(t)]).toEqual([p, f, t, native.test(t)]);
        }
      }),
      { seed: 7, numRuns: RUNS },
    );
  });

  it('the safe matcher (native or NFA by length) agrees with V8 on longer texts', () => {
    fc.assert(
      fc.property(pattern, flags, fc.string({ unit: fc.constantFrom('a', 'b', 'A', '1', ' ', '\n'), minLength: 30, maxLength: 80 }), (p, f, t) => {
        if (affordable(p, t.length)) expect([p, t, compileSafeRegex(p, f).test(t)]).toEqual([p, t, new RegExp(p, f).test(t)]);
      }),
      { seed: 8, numRuns: RUNS / 2 },
    );
  });
});

describe('catastrophic patterns do not stall', () => {
  const long = 'a'.repeat(50_000) + '!';
  it.each([
    ['(a+)+$', false],
    ['(a|a)*b', false],
    ['(a|aa)+$', false],
    ['.*.*.*.*x', false],
    ['(\\w+\\s?)+$', false],
    ['^(a?){25}a{25}$', false],
    ['a*b', false],
    ['(a*)*!', true],
  ])('%s', (p, expected) => {
    const started = performance.now();
    expect(compileSafeRegex(p, '').test(long)).toBe(expected);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe('refused patterns', () => {
  it.each([
    ['(a)\\1', 'regexUnsafe'],
    ['\\k<x>', 'regexUnsafe'],
    ['(?=a)', 'regexUnsafe'],
    ['(?<!a)b', 'regexUnsafe'],
    ['(?i)a', 'regexUnsafe'],
    ['a{', 'regexUnsafe'],
    ['\\q', 'regexUnsafe'],
    ['\\01', 'regexUnsafe'],
    ['\\u{61}', 'regexUnsafe'],
    ['a{1,2000}', 'regexUnsafe'],
    ['(((a{1000}){1000}))', 'regexUnsafe'],
    ['a**', 'invalidQueryKey'],
    ['(', 'invalidQueryKey'],
    [')', 'invalidQueryKey'],
    ['[b-a]', 'invalidQueryKey'],
    ['a{3,2}', 'invalidQueryKey'],
    ['^*', 'invalidQueryKey'],
  ])('%s', (p, name) => {
    try {
      compileSafeRegex(p, '', 'field');
      throw new Error('accepted');
    } catch (err) {
      expect(isSvcError(err) && err.errorName).toBe(name);
    }
  });

  it('refuses unknown flags', () => {
    expect(() => compileSafeRegex('a', 'g')).toThrow(/\$options/);
  });

  it('named groups are plain groups', () => {
    expect(compileSafeRegex('(?<word>ab)+c', '').test('xababc')).toBe(true);
  });
});

describe('backtracking bound', () => {
  const bound = (p: string) => pathBound(parseRegex(p, false));
  it('classifies patterns', () => {
    expect(bound('abc')).toEqual({ deg: 0, c: 1 });
    expect(bound('a*b')).toEqual({ deg: 1, c: 1 });
    expect(bound('.*.*x')).toEqual({ deg: 2, c: 1 });
    expect(bound('(a|b)c')).toEqual({ deg: 0, c: 2 });
    expect(bound('(a+)+').c).toBe(Infinity);
    expect(bound('(a|b)*').c).toBe(Infinity);
  });
  it('lets the native engine run literal patterns on any length and bounded ones on short texts', () => {
    expect(maxNativeLength(bound('abc'), 4)).toBe(Infinity);
    expect(maxNativeLength(bound('a*b'), 4)).toBeGreaterThan(10);
    expect(maxNativeLength(bound('a*b'), 4)).toBeLessThan(1000);
    expect(maxNativeLength(bound('(a+)+'), 4)).toBe(-1);
  });
});

describe('plain-text patterns (startsWith / includes)', () => {
  const text = fc.string({ unit: fc.constantFrom('a', 'b', '-', '/', 'é', '\n', '😀', '\uD83D', ' ') as fc.Arbitrary<string>, maxLength: 12 });
  const literal = fc.tuple(fc.boolean(), fc.string({ unit: fc.constantFrom('a', 'b', '-', '/', 'é', '\n', '😀', '\uD83D') as fc.Arbitrary<string>, maxLength: 4 }));

  it('answer exactly as the regex does, anchored or not, with every flag', () => {
    fc.assert(
      fc.property(literal, text, fc.constantFrom('', 's', 'i', 'm', 'ims'), ([anchored, body], subject, flags) => {
        const source = (anchored ? '^' : '') + body;
        expect(compileSafeRegex(source, flags).test(subject)).toBe(new RegExp(source, flags).test(subject));
      }),
      { seed: 20261127, numRuns: RUNS },
    );
  });

  it('leave patterns with a meaningful character to the regex engines', () => {
    expect(compileSafeRegex('^ab', 'm').test('x\nab')).toBe(true);
    expect(compileSafeRegex('^ab', '').test('x\nab')).toBe(false);
    expect(compileSafeRegex('a.b', '').test('axb')).toBe(true);
    expect(compileSafeRegex('^A', 'i').test('abc')).toBe(true);
    expect(compileSafeRegex('^', '').test('')).toBe(true);
    expect(compileSafeRegex('', '').test('anything')).toBe(true);
  });
});
