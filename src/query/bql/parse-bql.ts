import { svcError } from '../../core/errors.js';
import type { Json } from '../../core/wire-values.js';

/**
 * A BQL statement (the hosted service's SQL-like query language, `GET /1/cloudQuery`) as the list
 * query it stands for: the same wire parameters `GET /1/classes/:table` takes, so the records list
 * service validates and runs it with every rule of a list (ACLs, permissions, secret columns, limits).
 */
export interface BqlQuery {
  readonly className: string;
  /** The where object (`{}` for none), with `?` placeholders bound. */
  readonly where: { [key: string]: Json };
  /** `select a, b` → `['a', 'b']`; empty for `*`. */
  readonly keys: readonly string[];
  /** `order by a desc, b` → `['-a', 'b']`. */
  readonly order: readonly string[];
  readonly limit?: number;
  readonly skip?: number;
  /** `select count(*)` (alone: only the count; with columns: the rows and the count). */
  readonly count: boolean;
  readonly countOnly: boolean;
}

/** Longest BQL text accepted (bytes of UTF-16 code units, the wire form is far shorter in practice). */
export const MAX_BQL_LENGTH = 16_384;
const MAX_DEPTH = 32;

type Token =
  | { kind: 'word'; text: string; at: number }
  | { kind: 'string'; text: string; at: number }
  | { kind: 'number'; value: number; at: number }
  | { kind: 'symbol'; text: string; at: number }
  | { kind: 'placeholder'; at: number }
  | { kind: 'end'; at: number };

function invalid(message: string, at?: number): never {
  throw svcError('invalidBql', at === undefined ? message : `${message} at ${at}`);
}

const SYMBOLS = ['<=', '>=', '!=', '<>', '=', '<', '>', '(', ')', ',', '*'];

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "'" || c === '"') {
      let j = i + 1;
      let out = '';
      for (;;) {
        if (j >= text.length) invalid('unterminated string', i);
        const d = text[j]!;
        if (d === '\\' && j + 1 < text.length) {
          out += text[j + 1];
          j += 2;
          continue;
        }
        if (d === c) {
          if (text[j + 1] === c) {
            out += c;
            j += 2;
            continue;
          }
          break;
        }
        out += d;
        j++;
      }
      tokens.push({ kind: 'string', text: out, at: i });
      i = j + 1;
      continue;
    }
    const number = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (number && (c !== '-' || /[\d.]/.test(text[i + 1] ?? ''))) {
      const value = Number(number[0]);
      if (!Number.isFinite(value)) invalid('number out of range', i);
      tokens.push({ kind: 'number', value, at: i });
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*/.exec(text.slice(i, i + 512));
    if (word) {
      tokens.push({ kind: 'word', text: word[0], at: i });
      i += word[0].length;
      continue;
    }
    if (c === '?') {
      tokens.push({ kind: 'placeholder', at: i });
      i++;
      continue;
    }
    const symbol = SYMBOLS.find((s) => text.startsWith(s, i));
    if (!symbol) invalid(`unexpected '${c}'`, i);
    tokens.push({ kind: 'symbol', text: symbol, at: i });
    i += symbol.length;
  }
  tokens.push({ kind: 'end', at: text.length });
  return tokens;
}

const COMPARE: Readonly<Record<string, string | null>> = { '=': null, '!=': '$ne', '<>': '$ne', '<': '$lt', '<=': '$lte', '>': '$gt', '>=': '$gte' };
const RESERVED = new Set(['select', 'from', 'where', 'and', 'or', 'not', 'in', 'is', 'exists', 'order', 'by', 'asc', 'desc', 'limit', 'count', 'true', 'false', 'null']);

class Parser {
  private at = 0;
  private placeholders = 0;

  constructor(
    private readonly tokens: readonly Token[],
    private readonly values: readonly Json[],
  ) {}

  private peek(): Token {
    return this.tokens[this.at]!;
  }

  private next(): Token {
    return this.tokens[this.at++]!;
  }

  private isWord(word: string): boolean {
    const t = this.peek();
    return t.kind === 'word' && t.text.toLowerCase() === word;
  }

  private isSymbol(symbol: string): boolean {
    const t = this.peek();
    return t.kind === 'symbol' && t.text === symbol;
  }

  private expectWord(word: string): void {
    if (!this.isWord(word)) invalid(`expected '${word}'`, this.peek().at);
    this.at++;
  }

  private expectSymbol(symbol: string): void {
    if (!this.isSymbol(symbol)) invalid(`expected '${symbol}'`, this.peek().at);
    this.at++;
  }

  private identifier(what: string): string {
    const t = this.next();
    if (t.kind !== 'word' || RESERVED.has(t.text.toLowerCase())) invalid(`expected ${what}`, t.at);
    return t.text;
  }

  private bound(): Json {
    if (this.placeholders >= this.values.length) invalid(`placeholder ${this.placeholders + 1} has no value`, this.peek().at);
    return this.values[this.placeholders++]!;
  }

  private value(): Json {
    const t = this.next();
    switch (t.kind) {
      case 'placeholder':
        return this.bound();
      case 'string':
        return t.text;
      case 'number':
        return t.value;
      case 'word': {
        const lower = t.text.toLowerCase();
        if (lower === 'true') return true;
        if (lower === 'false') return false;
        if (lower === 'null') return null;
        if (lower === 'date' || lower === 'pointer' || lower === 'geopoint') return this.typed(lower, t.at);
        return invalid('expected a value', t.at);
      }
      default:
        return invalid('expected a value', t.at);
    }
  }

  /** `date('2026-01-01 00:00:00')`, `pointer('_User', 'id')`, `geopoint(lng, lat)`. */
  private typed(kind: string, at: number): Json {
    this.expectSymbol('(');
    const args: Json[] = [this.value()];
    while (this.isSymbol(',')) {
      this.at++;
      args.push(this.value());
    }
    this.expectSymbol(')');
    const text = (v: Json | undefined) => (typeof v === 'string' ? v : invalid(`${kind}() takes strings`, at));
    const num = (v: Json | undefined) => (typeof v === 'number' ? v : invalid(`${kind}() takes numbers`, at));
    if (kind === 'date' && args.length === 1) return { __type: 'Date', iso: text(args[0]) };
    if (kind === 'pointer' && args.length === 2) return { __type: 'Pointer', className: text(args[0]), objectId: text(args[1]) };
    if (kind === 'geopoint' && args.length === 2) return { __type: 'GeoPoint', longitude: num(args[0]), latitude: num(args[1]) };
    return invalid(`wrong arguments for ${kind}()`, at);
  }

  private condition(depth: number): { [key: string]: Json } {
    if (depth > MAX_DEPTH) invalid('conditions nested too deeply', this.peek().at);
    const terms = [this.conjunction(depth)];
    while (this.isWord('or')) {
      this.at++;
      terms.push(this.conjunction(depth));
    }
    return terms.length === 1 ? terms[0]! : { $or: terms };
  }

  private conjunction(depth: number): { [key: string]: Json } {
    const terms = [this.predicate(depth)];
    while (this.isWord('and')) {
      this.at++;
      terms.push(this.predicate(depth));
    }
    return terms.length === 1 ? terms[0]! : { $and: terms };
  }

  private predicate(depth: number): { [key: string]: Json } {
    if (this.isSymbol('(')) {
      this.at++;
      const inner = this.condition(depth + 1);
      this.expectSymbol(')');
      return inner;
    }
    const field = this.identifier('a column name');
    if (this.isWord('is')) {
      this.at++;
      const negate = this.isWord('not');
      if (negate) this.at++;
      if (this.isWord('exists')) {
        this.at++;
        return { [field]: { $exists: !negate } };
      }
      if (this.isWord('null')) {
        this.at++;
        return negate ? { [field]: { $ne: null } } : { [field]: null };
      }
      return invalid("expected 'exists' or 'null'", this.peek().at);
    }
    const negate = this.isWord('not');
    if (negate) this.at++;
    if (this.isWord('in')) {
      this.at++;
      this.expectSymbol('(');
      const list: Json[] = [this.value()];
      while (this.isSymbol(',')) {
        this.at++;
        list.push(this.value());
      }
      this.expectSymbol(')');
      return { [field]: { [negate ? '$nin' : '$in']: list } };
    }
    if (negate) invalid("expected 'in' after 'not'", this.peek().at);
    const op = this.next();
    if (op.kind !== 'symbol' || !Object.hasOwn(COMPARE, op.text)) invalid('expected a comparison', op.at);
    const value = this.value();
    const operator = COMPARE[op.text];
    if (operator) return { [field]: { [operator]: value } };
    // A bound object stays a value: `owner = ?` with `{"$ne": …}` must not become an operator.
    const operatorLike = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).some((key) => key.startsWith('$'));
    return { [field]: operatorLike ? { $eq: value } : value };
  }

  private count(): number {
    const t = this.next();
    const value = t.kind === 'placeholder' ? this.bound() : t.kind === 'number' ? t.value : undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) invalid('limit takes non-negative integers', t.at);
    return value;
  }

  parse(): BqlQuery {
    this.expectWord('select');
    const keys: string[] = [];
    let count = false;
    let star = false;
    for (;;) {
      if (this.isSymbol('*')) {
        this.at++;
        star = true;
      } else if (this.isWord('count')) {
        this.at++;
        this.expectSymbol('(');
        this.expectSymbol('*');
        this.expectSymbol(')');
        count = true;
      } else keys.push(this.identifier('a column name'));
      if (!this.isSymbol(',')) break;
      this.at++;
    }
    this.expectWord('from');
    const className = this.identifier('a table name');
    let where: { [key: string]: Json } = {};
    const order: string[] = [];
    let limit: number | undefined;
    let skip: number | undefined;
    if (this.isWord('where')) {
      this.at++;
      where = this.condition(0);
    }
    // The hosted examples put `limit` before `order by` as well as after it.
    for (let clause = 0; clause < 2; clause++) {
      if (this.isWord('limit') && limit === undefined) {
        this.at++;
        const first = this.count();
        if (this.isSymbol(',')) {
          this.at++;
          skip = first;
          limit = this.count();
        } else limit = first;
      } else if (this.isWord('order') && order.length === 0) {
        this.at++;
        this.expectWord('by');
        do {
          if (order.length > 0) this.at++;
          const field = this.identifier('a column name');
          let descending = false;
          if (this.isWord('desc')) {
            this.at++;
            descending = true;
          } else if (this.isWord('asc')) this.at++;
          order.push(descending ? `-${field}` : field);
        } while (this.isSymbol(','));
      }
    }
    const end = this.peek();
    if (end.kind !== 'end') invalid('unexpected text', end.at);
    if (this.placeholders !== this.values.length) invalid(`${this.values.length} values for ${this.placeholders} placeholders`);
    return {
      className,
      where,
      keys: star ? [] : keys,
      order,
      ...(limit === undefined ? {} : { limit }),
      ...(skip === undefined ? {} : { skip }),
      count,
      countOnly: count && !star && keys.length === 0,
    };
  }
}

/**
 * Parses a BQL statement with its `values` (bound to `?` in order) into a list query. Every syntax
 * error is 601 (`Invalid bql:…`) with the position; names and values are checked again by the list
 * parser the query then goes through.
 *
 * @example parseBql("select * from Player where name = ? limit 0, 100 order by -score", ['dennis'])
 */
export function parseBql(text: string, values: readonly Json[] = []): BqlQuery {
  if (typeof text !== 'string' || text.trim() === '') invalid('empty');
  if (text.length > MAX_BQL_LENGTH) invalid(`longer than ${MAX_BQL_LENGTH} characters`);
  return new Parser(tokenize(text), values).parse();
}
