import { svcError } from '../../core/errors.js';
import { pathBound, maxNativeLength } from './cost.js';
import { compileNfa, ProgramTooLargeError } from './nfa.js';
import { parseRegex, RegexSyntaxError } from './syntax.js';

/**
 * `$regex` matching that cannot stall the process. A pattern is parsed into a regular subset of
 * JavaScript's syntax (refusing backreferences, lookaround and ambiguous legacy escapes), then each
 * test runs on V8's native engine only when a static bound proves its backtracking cheap for that
 * text length, and otherwise on a linear-time NFA. Both engines implement the same language, so the
 * answer never depends on which one ran. The memory evaluator and SQLite's `svc_regex` both call
 * `compileSafeRegex`, so adapters agree.
 */

/** Longest accepted pattern, in UTF-16 code units. */
export const MAX_PATTERN_LENGTH = 512;

/** Flags accepted from `$options`: case-insensitive, multiline anchors, dot matches newlines. */
const FLAGS = /^[ims]*$/;

export interface SafeRegex {
  readonly pattern: string;
  readonly flags: string;
  /** True when the pattern matches somewhere in `text`. */
  test(text: string): boolean;
}

const cache = new Map<string, SafeRegex>();
const CACHE_SIZE = 256;

/**
 * Compiles (or fetches from a small cache) a safe matcher. Throws SvcError `regexUnsafe` (11021)
 * for patterns outside the subset or too large, `invalidQueryKey` (102) for invalid syntax; `key`
 * names the queried field in messages.
 *
 * @example compileSafeRegex('^smile', 'i', 'playerName').test('Smiley') // true
 */
export function compileSafeRegex(pattern: string, flags: string, key = '$regex'): SafeRegex {
  const cacheKey = `${flags}/${pattern}`;
  const hit = cache.get(cacheKey);
  if (hit) return hit;
  const compiled = build(pattern, flags, key);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(cacheKey, compiled);
  return compiled;
}

function build(pattern: string, flags: string, key: string): SafeRegex {
  if (!FLAGS.test(flags)) throw svcError('invalidQueryKey', `${key}: $options may only hold i, m and s, got '${flags}'.`);
  if (pattern.length > MAX_PATTERN_LENGTH) {
    throw svcError('regexUnsafe', `${key}: longer than ${MAX_PATTERN_LENGTH} characters`);
  }
  const normalizedFlags = ['i', 'm', 's'].filter((f) => flags.includes(f)).join('');
  let native: RegExp;
  let tree;
  try {
    tree = parseRegex(pattern, normalizedFlags.includes('s'));
    native = new RegExp(pattern, normalizedFlags);
  } catch (err) {
    if (err instanceof RegexSyntaxError && err.reason === 'unsupported') throw svcError('regexUnsafe', `${key}: ${err.message}`);
    const reason = err instanceof Error ? err.message : String(err);
    throw svcError('invalidQueryKey', `${key}: invalid $regex: ${reason}.`);
  }
  const literal = literalTest(pattern, normalizedFlags);
  if (literal) return { pattern, flags: normalizedFlags, test: literal };
  let nfa;
  try {
    nfa = compileNfa(tree, { ignoreCase: normalizedFlags.includes('i'), multiline: normalizedFlags.includes('m') });
  } catch (err) {
    if (err instanceof ProgramTooLargeError) throw svcError('regexUnsafe', `${key}: ${err.message}`);
    throw err;
  }
  const nativeUpTo = maxNativeLength(pathBound(tree), nfa.size);
  return {
    pattern,
    flags: normalizedFlags,
    test: (text) => (text.length <= nativeUpTo ? native.test(text) : nfa.test(text)),
  };
}

/** No character with a meaning in a pattern, after an optional leading `^`. */
const LITERAL = /^\^?[^\\^$.|?*+()[\]{}]*$/;

/**
 * A pattern that is plain text, optionally anchored at the start, without `i` or `m` (which change
 * what its characters or `^` match): `startsWith` or `includes`, which V8 runs several times faster
 * than the regex (`^user12` is the typical prefix search). Without the `u` flag both compare UTF-16
 * code units, so the answers are the regex's.
 */
function literalTest(pattern: string, flags: string): ((text: string) => boolean) | null {
  if (flags.includes('i') || flags.includes('m') || !LITERAL.test(pattern)) return null;
  if (pattern.startsWith('^')) {
    const prefix = pattern.slice(1);
    return (text) => text.startsWith(prefix);
  }
  return (text) => text.includes(pattern);
}
