import type { DateValue, PointerValue, Value } from '../../core/values.js';
import { dateMs } from '../../core/values.js';
import type { FieldRef, FindPlan, TableSchema, WhereNode } from '../../query/plan.js';
import { schemaColumn } from '../../query/schema-lookup.js';
import type { CompiledQuery } from '../../query/sql/index.js';

/**
 * Compiled find/count SQL per plan SHAPE, for the SQL adapters. Compiling a plan costs microseconds
 * (fragments, checks, rendering); the SQL text only depends on the plan's structure, the table's
 * schema and, for each value, whether it can match the column (a value of the wrong type folds to a
 * constant). So the key is that structure with the values left out, and the parameters are read off
 * the plan again in the compiler's order, bound as the dialect binds them (`ShapeBinding`).
 *
 * Only plans over the queried table's scalar columns (String, Number, Boolean, Date, Pointer, the
 * built-in columns, or columns the schema does not know) are cached: and/or/compare/in/exists/regex
 * nodes, the ACL read filter, any order, no `near`. Anything else (JSON paths, arrays, geo,
 * relations, inner queries) compiles every time. The first compilation of a shape checks that the
 * parameters read off the plan are exactly the compiler's; if they are not (a constant folded a
 * branch's parameters away), the shape is marked uncacheable. Caches hang off the frozen schema
 * object, so a schema change (a new frozen object) starts a fresh cache.
 */

/**
 * How a dialect binds what a shape reads off a plan, where dialects differ: Booleans, the ACL read
 * filter and the limit (which PostgreSQL writes into the text).
 */
export interface ShapeBinding {
  booleanParam(value: boolean): unknown;
  /** The key of an ACL read filter holding `*` over an `ACL` Object column, pushing its parameters. */
  aclRead(principals: readonly string[], parameters: unknown[]): string;
  /** The key of a find's LIMIT/OFFSET, pushing its parameters. */
  limit(limit: number, skip: number, parameters: unknown[]): string;
}

/** A cached shape: its SQL and prepared statement, or null when the shape must always compile. */
export type CachedQuery<S> = { readonly sql: string; readonly statement: S } | null;

const MAX_SHAPES = 256;
const SYSTEM: Readonly<Record<string, ScalarType>> = { objectId: 'String', createdAt: 'Date', updatedAt: 'Date' };

type ScalarType = 'String' | 'Number' | 'Boolean' | 'Date' | 'Pointer';

/** Why a plan is not cacheable: thrown inside the walk, caught once at the top. */
const UNCACHEABLE = Symbol('uncacheable');

/** A shape key and the parameters of a plan, or null when the plan is not cacheable. */
export interface PlanShape {
  readonly key: string;
  readonly parameters: unknown[];
}

/** The key `walk` builds, or null when it finds something not cacheable. */
export function shapeKey(walk: () => string): string | null {
  try {
    return walk();
  } catch (error) {
    if (error === UNCACHEABLE) return null;
    throw error;
  }
}

export function findShape(schema: TableSchema, plan: FindPlan, binding: ShapeBinding): PlanShape | null {
  if (plan.nearest) return null;
  const parameters: unknown[] = [];
  const where = shapeKey(() => whereKey(plan.where, schema, binding, parameters));
  if (where === null) return null;
  const key = 'F' + where + '|O' + orderKey(plan) + '|' + binding.limit(plan.limit, plan.skip, parameters);
  return { key, parameters };
}

export function countShape(schema: TableSchema, where: WhereNode, binding: ShapeBinding): PlanShape | null {
  const parameters: unknown[] = [];
  const key = shapeKey(() => whereKey(where, schema, binding, parameters));
  return key === null ? null : { key: 'C' + key, parameters };
}

/** The plan's order terms as a key part. */
export function orderKey(plan: FindPlan): string {
  let key = '';
  for (const term of plan.order) key += fieldKey(term.field) + (term.descending ? 'd' : 'a');
  return key;
}

/** Shapes per (frozen) schema object of one connection or pool, keyed as the adapter's shape functions key them. */
export class QueryCache<S> {
  private bySchema = new WeakMap<TableSchema, Map<string, CachedQuery<S>>>();

  /** The cached entry of a shape: undefined when never seen. */
  get(schema: TableSchema, key: string): CachedQuery<S> | undefined {
    return this.bySchema.get(schema)?.get(key);
  }

  /**
   * Remembers a freshly compiled shape. `compiled.parameters` must equal `shape.parameters` for the
   * SQL to be reused; otherwise the shape is remembered as uncacheable.
   */
  remember(schema: TableSchema, shape: PlanShape, compiled: CompiledQuery, statement: S): void {
    this.shapesOf(schema).set(shape.key, sameParameters(shape.parameters, compiled.parameters) ? { sql: compiled.sql, statement } : null);
  }

  /** Remembers that a shape must always compile (or, for a branch count, is not used). */
  refuse(schema: TableSchema, key: string): void {
    this.shapesOf(schema).set(key, null);
  }

  clear(): void {
    this.bySchema = new WeakMap();
  }

  private shapesOf(schema: TableSchema): Map<string, CachedQuery<S>> {
    let shapes = this.bySchema.get(schema);
    if (!shapes) this.bySchema.set(schema, (shapes = new Map()));
    if (shapes.size >= MAX_SHAPES) shapes.clear();
    return shapes;
  }
}

/** Equal parameter lists; an array parameter (PostgreSQL's principals) compares element by element. */
function sameParameters(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (Array.isArray(x) && Array.isArray(y) ? !sameParameters(x, y) : !Object.is(x, y)) return false;
  }
  return true;
}

/** `<length>:<column>` plus the path, so that no two fields share a key. */
function fieldKey(field: FieldRef): string {
  let key = field.column.length + ':' + field.column;
  for (const part of field.path) key += '.' + part.length + ':' + part;
  return key;
}

/** The scalar type of a field, or null when it is always missing; throws for non-scalar slots. */
function scalarType(field: FieldRef, schema: TableSchema): ScalarType | null {
  const system = Object.hasOwn(SYSTEM, field.column) ? SYSTEM[field.column]! : undefined;
  if (system !== undefined) return field.path.length > 0 ? null : system;
  const entry = schemaColumn(schema, field.column);
  if (!entry) return null;
  if (field.path.length > 0) {
    if (entry.type !== 'Object') return null;
    throw UNCACHEABLE;
  }
  switch (entry.type) {
    case 'String':
    case 'Number':
    case 'Boolean':
    case 'Date':
      return entry.type;
    case 'Pointer':
      // The target class decides which Pointer values can match: part of the schema, so of the key.
      return 'Pointer';
    default:
      throw UNCACHEABLE;
  }
}

function isTyped(v: Value, tag: string): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { __type?: string }).__type === tag;
}

/**
 * One character for a value in a scalar slot, pushing its bound form (as `scalarParam` in
 * src/query/sql/where-compiler.ts binds it): `n` null, `p` a parameter, `x` can never match.
 */
function valueKey(type: ScalarType | null, value: Value, field: FieldRef, schema: TableSchema, binding: ShapeBinding, parameters: unknown[]): string {
  if (value === null) return 'n';
  switch (type) {
    case null:
      return 'x';
    case 'String':
    case 'Number':
      if (typeof value !== (type === 'String' ? 'string' : 'number')) return 'x';
      parameters.push(value);
      return 'p';
    case 'Boolean':
      if (typeof value !== 'boolean') return 'x';
      parameters.push(binding.booleanParam(value));
      return 'p';
    case 'Date':
      if (!isTyped(value, 'Date')) return 'x';
      parameters.push(dateMs(value as DateValue));
      return 'p';
    case 'Pointer':
      if (!isTyped(value, 'Pointer') || (value as PointerValue).className !== schema.columns[field.column]?.targetClass) return 'x';
      parameters.push((value as PointerValue).objectId);
      return 'p';
  }
}

/** The shape key of a where, pushing its parameters; throws UNCACHEABLE (see `shapeKey`). */
export function whereKey(node: WhereNode, schema: TableSchema, binding: ShapeBinding, parameters: unknown[]): string {
  switch (node.kind) {
    case 'all_records':
      return 'T';
    case 'and':
    case 'or': {
      let key = node.kind === 'and' ? 'A(' : 'O(';
      for (const child of node.nodes) key += whereKey(child, schema, binding, parameters) + ',';
      return key + ')';
    }
    case 'compare': {
      const type = scalarType(node.field, schema);
      // Order comparisons on Boolean and Pointer columns never match (no parameter).
      if (node.op !== 'eq' && node.op !== 'ne' && (type === 'Boolean' || type === 'Pointer')) return 'c' + node.op + fieldKey(node.field) + '=x';
      return 'c' + node.op + fieldKey(node.field) + '=' + valueKey(type, node.value, node.field, schema, binding, parameters);
    }
    case 'in': {
      const type = scalarType(node.field, schema);
      let key = (node.negate ? 'N' : 'I') + fieldKey(node.field) + '=';
      for (const value of node.values) key += valueKey(type, value, node.field, schema, binding, parameters);
      return key;
    }
    case 'exists':
      scalarType(node.field, schema);
      return (node.exists ? 'E' : 'e') + fieldKey(node.field);
    case 'regex': {
      const type = scalarType(node.field, schema);
      if (type !== 'String') return 'r' + fieldKey(node.field);
      parameters.push(node.pattern, node.flags);
      return 'R' + fieldKey(node.field);
    }
    case 'acl_read': {
      // As the compiler renders it: nothing when the table has no ACL column, else as the dialect binds it.
      const acl = schemaColumn(schema, 'ACL');
      if (!acl) return 'L-';
      if (acl.type !== 'Object' || !node.principals.includes('*')) throw UNCACHEABLE;
      return binding.aclRead(node.principals, parameters);
    }
    default:
      throw UNCACHEABLE;
  }
}
