import type { Value } from '../../core/values.js';
import type { FieldRef, WhereNode } from '../plan.js';
import { schemaColumn } from '../schema-lookup.js';
import type { EvalContext, Filter, Predicate, ValueTest } from './context.js';
import { inheritsName } from './field.js';
import { equalsTest, orderTest } from './operators/comparison.js';
import { containsAllTest, inTest } from './operators/membership.js';
import { regexOf, regexTest } from './operators/regex.js';

/**
 * Compiles a where tree into generated JavaScript whose property reads name their columns as
 * constants (`r["category"]`). The closure compiler reads every column through one shared
 * `r[column]` site, which V8 sees with many names (megamorphic) once a query has two fields; here
 * each leaf is its own small function with one constant name, so the engine inlines it like a
 * hand-written filter. Only names and the tree's shape enter the source (names as JSON string
 * literals); every value is passed in as data (`K`) and every operator without a generated form runs
 * as its closure (`X`), so the semantics stay those of the closure compilers, which remain the
 * reference. The same source holds the loop that selects an array's matches (D230): one loop per
 * query shape, so its call of the predicate sees one target and is inlined, where a loop shared by
 * every shape calls each predicate through a megamorphic site. Returns null when code generation
 * is unavailable (e.g. `--disallow-code-generation-from-strings`).
 */
export function generateFilter(node: WhereNode, ctx: EvalContext, fallback: (node: WhereNode, ctx: EvalContext) => Predicate): Filter | null {
  if (generationDisabled) return null;
  const program = new Program(ctx, fallback);
  const expression = program.expression(node);
  const source = [...program.prelude(), ...program.functions, `function predicate(r) { return ${expression}; }`, SELECT, 'return { test: predicate, select };'].join('\n');
  let factory = FACTORIES.get(source);
  if (!factory) {
    try {
      factory = new Function('K', 'X', `"use strict";\n${source}`) as Factory;
    } catch {
      generationDisabled = true;
      return null;
    }
    if (FACTORIES.size >= MAX_FACTORIES) FACTORIES.delete(FACTORIES.keys().next().value as string);
    FACTORIES.set(source, factory);
  }
  return factory(program.constants, program.externals);
}

/** The generated predicate alone (see {@link generateFilter}). */
export function generatePredicate(node: WhereNode, ctx: EvalContext, fallback: (node: WhereNode, ctx: EvalContext) => Predicate): Predicate | null {
  return generateFilter(node, ctx, fallback)?.test ?? null;
}

/** The generated {@link Selector}: positions of the matches, up to `limit` of them. */
const SELECT = `function select(list, into, limit) {
  const n = list.length;
  let c = 0;
  for (let i = 0; i < n; i++) {
    if (predicate(list[i])) {
      into[c++] = i;
      if (c >= limit) break;
    }
  }
  return c;
}`;

type Factory = (constants: readonly unknown[], externals: readonly unknown[]) => Filter;

/** Generated functions by source: a query shape seen again costs a lookup, not a compile. */
const FACTORIES = new Map<string, Factory>();
const MAX_FACTORIES = 512;
let generationDisabled = false;

const PRIMITIVE = (v: Value): v is string | number | boolean => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
const ORDER_OPERATORS = { lt: '<', lte: '<=', gt: '>', gte: '>=' } as const;

class Program {
  readonly functions: string[] = [];
  readonly constants: unknown[] = [];
  readonly externals: unknown[] = [];

  constructor(
    private readonly ctx: EvalContext,
    private readonly fallback: (node: WhereNode, ctx: EvalContext) => Predicate,
  ) {}

  /** A JavaScript expression over `r` for the node. */
  expression(node: WhereNode): string {
    switch (node.kind) {
      case 'all_records':
        return 'true';
      case 'and':
      case 'or': {
        if (node.nodes.length === 0) return node.kind === 'and' ? 'true' : 'false';
        const parts = node.nodes.map((n) => this.expression(n));
        return `(${parts.join(node.kind === 'and' ? ' && ' : ' || ')})`;
      }
      default: {
        const body = this.leaf(node);
        if (body === null) return `${this.external(this.fallback(node, this.ctx))}(r)`;
        const name = `f${this.functions.length}`;
        this.functions.push(`function ${name}(r) {\n${body}\n}`);
        return `${name}(r)`;
      }
    }
  }

  /** The body of a leaf's function (reads the field into `v`, then tests it), or null for a closure. */
  private leaf(node: WhereNode): string | null {
    switch (node.kind) {
      case 'compare': {
        if (node.field.path.length === 0 && schemaColumn(this.ctx.schema, node.field.column)?.type === 'Relation') return null;
        const read = this.read(node.field);
        if (read === null) return null;
        const value = node.value;
        if (node.op === 'eq' || node.op === 'ne') {
          const not = node.op === 'ne' ? '!' : '';
          if (typeof value === 'string') {
            // A string of another length is not equal: its length is read inline, where `===`
            // calls the engine's string comparison for every string that is not the constant.
            const k = this.constant(value);
            const length = this.constant(value.length);
            return `${read}\nreturn ${not}(typeof v === 'string' ? v.length === ${length} && v === ${k} : Array.isArray(v) && v.includes(${k}));`;
          }
          if (PRIMITIVE(value)) {
            const k = this.constant(value);
            return `${read}\nreturn ${not}(v === ${k} || (Array.isArray(v) && v.includes(${k})));`;
          }
          return `${read}\nreturn ${not}${this.external(equalsTest(value))}(v);`;
        }
        const test = this.external(orderTest(node.op, value));
        if (typeof value === 'number') {
          return `${read}\nreturn typeof v === 'number' ? v ${ORDER_OPERATORS[node.op]} ${this.constant(value)} : Array.isArray(v) && ${test}(v);`;
        }
        return `${read}\nreturn ${test}(v);`;
      }
      case 'exists': {
        const read = this.read(node.field);
        if (read === null) return null;
        return node.exists ? `${read}\nreturn v !== null && v !== undefined;` : `${read}\nreturn v === null || v === undefined;`;
      }
      case 'in': {
        const read = this.read(node.field);
        if (read === null) return null;
        const test = this.external(inTest(node.values));
        const not = node.negate ? '!' : '';
        if (node.values.every((v) => PRIMITIVE(v))) {
          const set = this.constant(new Set(node.values));
          return `${read}\nconst t = typeof v;\nreturn ${not}(t === 'string' || t === 'number' || t === 'boolean' ? ${set}.has(v) : ${test}(v));`;
        }
        return `${read}\nreturn ${not}${test}(v);`;
      }
      case 'contains_all': {
        const read = this.read(node.field);
        if (read === null) return null;
        if (node.values.length > 0 && node.values.length <= 8 && node.values.every((v) => PRIMITIVE(v))) {
          // An element equals at most one distinct primitive, so a shorter array cannot hold them
          // all: the length, read with the array, spares reading its elements (D231).
          const distinct = this.constant(new Set(node.values).size);
          const checks = node.values.map((v) => `v.includes(${this.constant(v)})`).join(' && ');
          return `${read}\nreturn Array.isArray(v) && v.length >= ${distinct} && ${checks};`;
        }
        return `${read}\nreturn ${this.external(containsAllTest(node.values))}(v);`;
      }
      case 'regex': {
        const read = this.read(node.field);
        if (read === null) return null;
        // A string is tested by the cached matcher itself (the same function for every query with
        // this pattern, so the engine can inline it); arrays by the closure's array rule.
        const regex = this.constant(regexOf(node));
        return `${read}\nreturn typeof v === 'string' ? ${regex}.test(v) : Array.isArray(v) && ${this.external(regexTest(node))}(v);`;
      }
      default:
        return null;
    }
  }

  /**
   * Statements reading the field into `v` (undefined when missing): own properties only, objects
   * (not arrays) traversed by paths, as `compileGetter` reads. Null for a top-level name a plain
   * object inherits (the closure getter handles those).
   */
  private read(field: FieldRef): string | null {
    if (inheritsName(field.column)) return null;
    const lines = [`let v = r[${JSON.stringify(field.column)}];`];
    for (const segment of field.path) {
      const name = JSON.stringify(segment);
      // A name no plain object inherits is own or absent, so the own-property check can go.
      const own = inheritsName(segment) ? ` && Object.hasOwn(v, ${name})` : '';
      lines.push(`v = typeof v === 'object' && v !== null && !Array.isArray(v)${own} ? v[${name}] : undefined;`);
    }
    return lines.join('\n');
  }

  /** Constants and closures bound once per compiled predicate, so leaves read them as locals. */
  prelude(): string[] {
    const k = this.constants.map((_, i) => `const k${i} = K[${i}];`);
    const x = this.externals.map((_, i) => `const x${i} = X[${i}];`);
    return [...k, ...x];
  }

  private constant(value: unknown): string {
    this.constants.push(value);
    return `k${this.constants.length - 1}`;
  }

  private external(fn: ValueTest | Predicate): string {
    this.externals.push(fn);
    return `x${this.externals.length - 1}`;
  }
}
