/**
 * The hosted service's rules for a Java function's source (rest-facts §7.3), checked when it is
 * saved: the text is one method, exactly the entry below, with `//` comments only, none of the
 * forbidden words (anywhere: the hosted console checks the raw text, which is why its docs split
 * words as `"F" + "ile"`), and `}` as its last character. The rules read the source as javac does:
 * after its Unicode escapes are translated (JLS §3.3: `\u0053ystem` is `System`, `\u000a` ends a
 * `//` comment) and without the characters javac ignores inside identifiers (JLS §3.8: `Sys\u200btem`
 * is `System` too). Lines are reported in the text as written. Pure: source in, the first broken
 * rule out.
 */

/** The only entry a Java function may have (whitespace between the tokens is free). */
export const JAVA_ENTRY = 'public static void onRequest(final Request request, final Response response, final Modules modules) throws Throwable';

/**
 * Words a function may not contain: the hosted list's named ones (`Class`, `File`, `System`) and
 * the other doors out of a function (processes, threads, reflection, class loading, native code,
 * the security manager). The JVM worker also runs function code with no permissions.
 */
export const FORBIDDEN_WORDS: readonly string[] = [
  'Class',
  'ClassLoader',
  'File',
  'Files',
  'FileDescriptor',
  'Path',
  'Paths',
  'System',
  'Runtime',
  'Process',
  'ProcessBuilder',
  'ProcessHandle',
  'Thread',
  'ThreadGroup',
  'Executors',
  'reflect',
  'MethodHandles',
  'Unsafe',
  'native',
  'SecurityManager',
  'AccessController',
  'getClass',
  'forName',
];

export interface JavaRuleBreak {
  /** A short name of the rule, as docs/functions.md lists them. */
  readonly rule: 'entry' | 'last-character' | 'block-comment' | 'forbidden-word' | 'one-method' | 'no-statics' | 'size';
  /** 1-based line of the source where it is broken. */
  readonly line: number;
  readonly detail: string;
}

const ENTRY_TOKENS = JAVA_ENTRY.replace(/\(/g, ' ( ').replace(/\)/g, ' ) ').replace(/,/g, ' , ').split(/\s+/).filter(Boolean);
const MAX_SOURCE_CHARS = 128 * 1024;

function lineAt(source: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index && i < source.length; i++) if (source.charCodeAt(i) === 10) line++;
  return line;
}

/** Characters javac drops inside identifiers (`Character.isIdentifierIgnorable`): controls that are not whitespace, and format characters. */
const IGNORABLE = /[\u0000-\u0008\u000e-\u001b\u007f-\u009f\p{Cf}]/u;

/** The source as javac reads it, and where each of its characters came from in the text as written. */
interface Translated {
  readonly text: string;
  /** The index in the written text of each translated character (one more entry: the end). */
  readonly from: readonly number[];
}

/**
 * JLS §3.3: a backslash preceded by an even number of backslashes, then one or more `u` and four hex
 * digits, is the character they name (a backslash it makes does not start another escape); then
 * the characters javac ignores are dropped. An escape without its four digits is left as written
 * (javac refuses it).
 */
function translate(source: string): Translated {
  let text = '';
  const from: number[] = [];
  let backslashes = 0;
  let at = 0;
  while (at < source.length) {
    const c = source[at]!;
    let char = c;
    let next = at + 1;
    if (c === '\\' && backslashes % 2 === 0 && source[at + 1] === 'u') {
      let u = at + 1;
      while (source[u] === 'u') u++;
      const hex = source.slice(u, u + 4);
      if (/^[0-9A-Fa-f]{4}$/.test(hex)) {
        char = String.fromCharCode(Number.parseInt(hex, 16));
        next = u + 4;
      }
    }
    // Only backslashes as written count toward the next one's eligibility.
    backslashes = c === '\\' && next === at + 1 ? backslashes + 1 : 0;
    if (!IGNORABLE.test(char)) {
      // A lone carriage return ends a line (and a // comment) as a line feed does.
      text += char === '\r' ? '\n' : char;
      from.push(at);
    }
    at = next;
  }
  from.push(source.length);
  return { text, from };
}

/** Index just past the whitespace and `//` comments from `from`. */
function skipSpace(source: string, from: number): number {
  let at = from;
  while (at < source.length) {
    if (/\s/.test(source[at]!)) at++;
    else if (source.startsWith('//', at)) {
      const end = source.indexOf('\n', at);
      at = end === -1 ? source.length : end + 1;
    } else break;
  }
  return at;
}

/** Index just past the entry's tokens, or -1 (with where they stopped matching). */
function matchEntry(source: string, from: number): { end: number; failedAt: number } {
  let at = from;
  for (const token of ENTRY_TOKENS) {
    at = skipSpace(source, at);
    if (!source.startsWith(token, at)) return { end: -1, failedAt: at };
    at += token.length;
    // A word token must end at a word boundary (`voidx` is not `void`).
    if (/^\w+$/.test(token) && at < source.length && /\w/.test(source[at]!)) return { end: -1, failedAt: at };
  }
  return { end: at, failedAt: -1 };
}

/**
 * The method body's closing brace for the `{` at `open`: braces counted outside string and char
 * literals and `//` comments; -1 when it never closes.
 */
function closingBrace(source: string, open: number): number {
  let depth = 0;
  for (let at = open; at < source.length; at++) {
    const c = source[at]!;
    if (c === '/' && source[at + 1] === '/') {
      const end = source.indexOf('\n', at);
      if (end === -1) return -1;
      at = end;
    } else if (c === '"' || c === "'") {
      // Text blocks ("""...""") and escapes: skip to the matching quote.
      const block = c === '"' && source.startsWith('"""', at);
      const quote = block ? '"""' : c;
      at += quote.length;
      while (at < source.length && !source.startsWith(quote, at)) at += source[at] === '\\' ? 2 : 1;
      at += quote.length - 1;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return at;
  }
  return -1;
}

/** The first rule the source breaks, or null when it may be compiled (lines as written). */
export function checkJavaSource(written: string): JavaRuleBreak | null {
  if (written.length > MAX_SOURCE_CHARS) return { rule: 'size', line: 1, detail: `the source is longer than ${MAX_SOURCE_CHARS} characters` };
  const { text, from } = translate(written);
  const broken = checkTranslated(text);
  if (!broken) return null;
  return { rule: broken.rule, line: lineAt(written, from[broken.at] ?? written.length), detail: broken.detail };
}

/** The first rule the translated source breaks, with the index where it is broken. */
function checkTranslated(source: string): (Omit<JavaRuleBreak, 'line'> & { readonly at: number }) | null {
  const block = source.indexOf('/*');
  if (block !== -1) return { rule: 'block-comment', at: block, detail: 'block comments (/* */) are not allowed; use //' };
  for (const word of FORBIDDEN_WORDS) {
    const found = new RegExp(`(?<![A-Za-z0-9_$])${word}(?![A-Za-z0-9_$])`).exec(source);
    if (found) return { rule: 'forbidden-word', at: found.index, detail: `'${word}' is not allowed in a function` };
  }
  const trimmed = source.trimEnd();
  if (!trimmed.endsWith('}')) return { rule: 'last-character', at: trimmed.length - 1, detail: "the last character must be '}'" };
  const start = skipSpace(source, 0);
  const entry = matchEntry(source, start);
  if (entry.end === -1) return { rule: 'entry', at: entry.failedAt, detail: `the function must be exactly: ${JAVA_ENTRY} { ... }` };
  const open = skipSpace(source, entry.end);
  if (source[open] !== '{') return { rule: 'entry', at: open, detail: "expected '{' after the entry" };
  const close = closingBrace(source, open);
  if (close === -1) return { rule: 'one-method', at: trimmed.length - 1, detail: "the method's braces do not close" };
  const after = skipSpace(source, close + 1);
  if (after < source.length) return { rule: 'one-method', at: after, detail: 'only one method is allowed: nothing may follow it (no other methods, fields or classes)' };
  const statics = /(?<![A-Za-z0-9_$])static(?![A-Za-z0-9_$])/g;
  statics.lastIndex = open;
  const nested = statics.exec(source);
  if (nested) return { rule: 'no-statics', at: nested.index, detail: "'static' is not allowed inside the function" };
  return null;
}
