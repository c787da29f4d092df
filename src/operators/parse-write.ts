import { svcError } from '../core/errors.js';
import { FORBIDDEN_KEYS, assertWritableField, isValidTableName } from '../core/names.js';
import { type Json, decodeValue } from '../core/wire-values.js';
import type { JsonObject as WireObject } from '../core/wire-values.js';
import type { ColumnSchema, TableSchema } from '../query/plan.js';
import type { FieldOp } from './field-op.js';
import { assertColumnType, describeColumn, impliedColumn } from './column-types.js';
import { parseFieldOp } from './parse-op.js';
import { isIndexSegment, splitDotKey } from './paths.js';

export interface WriteOptions {
  /** The table's current schema (null: the table does not exist yet). */
  readonly schema: TableSchema | null;
  /** Zone of Date inputs without an offset. */
  readonly timeZone: string;
  /** Deepest nesting of a body (default 64): a recursion guard for callers that skip the HTTP parser. */
  readonly maxDepth?: number;
}

/** A write body turned into validated operations plus the column types they need. */
export interface WritePlan {
  /** In body order; at most one whole-column operation per column. */
  readonly ops: readonly FieldOp[];
  /** Every column the write touches with the type it needs: pass to `ensureColumns`. */
  readonly columns: Readonly<Record<string, ColumnSchema>>;
}

type JsonObject = Readonly<WireObject>;

/**
 * Parses the JSON body of a create or update into field operations, validated against `schema`:
 * plain values become `set` (null becomes `unset`), `{"__op": ...}` objects their operation, and dot
 * keys (`"address.city": "x"`) a `set` with a path into an Object column (or an Array column when the
 * first step is an index). Pure: throws before anything is written.
 *
 * Errors: 105 invalid or reserved field name, 11004 forbidden key, 107 invalid `__op`, 111 a value or
 * operation that does not fit the column's type, 106/107/117 malformed typed values.
 *
 * @example parseWrite({ score: { __op: 'Increment', amount: 2 } }, { schema, timeZone: 'UTC' })
 */
export function parseWrite(body: JsonObject, options: WriteOptions): WritePlan {
  assertDepth(body, options.maxDepth ?? 64);
  const columns = options.schema?.columns ?? {};
  const ops: FieldOp[] = [];
  const implied: Record<string, ColumnSchema> = {};
  const whole = new Set<string>();
  const dotted = new Set<string>();
  for (const key of Object.keys(body)) {
    const value = body[key] as Json;
    if (FORBIDDEN_KEYS.has(key)) throw svcError('forbiddenKey', key);
    const { column, path } = key.includes('.') ? splitDotKey(key) : { column: key, path: [] as string[] };
    if (FORBIDDEN_KEYS.has(column)) throw svcError('forbiddenKey', column);
    assertWritableField(column);
    const existing = Object.hasOwn(columns, column) ? columns[column] : undefined;
    if (path.length === 0 ? whole.has(column) || dotted.has(column) : whole.has(column)) {
      throw svcError('invalidParameter', `more than one operation on column '${column}'`);
    }
    (path.length === 0 ? whole : dotted).add(column);
    const { op, implies } = parseEntry(value, column, path, key, options.timeZone, existing);
    if (implies) {
      // `implied` is a plain object: a column named like one of Object.prototype's methods is not in it.
      assertColumnType(key, existing ?? (Object.hasOwn(implied, column) ? implied[column] : undefined), implies);
      implied[column] = implies;
    }
    if (op) ops.push(op);
  }
  return { ops, columns: implied };
}

function isOpObject(value: Json): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, '__op');
}

function parseEntry(
  value: Json,
  column: string,
  path: readonly string[],
  key: string,
  timeZone: string,
  existing: ColumnSchema | undefined,
): { op: FieldOp | null; implies: ColumnSchema | null } {
  if (path.length > 0) return parseDotted(value, column, path, key, timeZone, existing);
  if (isOpObject(value)) {
    const parsed = parseFieldOp(value, column, path, key, timeZone);
    if (parsed.op?.kind === 'unset' && existing?.type === 'Relation') {
      throw svcError('invalidOp', `${key}: use RemoveRelation on a Relation column`);
    }
    return parsed;
  }
  if (isRelationDeclaration(value)) {
    return { op: null, implies: { type: 'Relation', targetClass: value.className as string } };
  }
  const decoded = decodeValue(value, key, timeZone);
  if (decoded === null) {
    if (existing?.type === 'Relation') throw svcError('invalidOp', `${key}: use RemoveRelation on a Relation column`);
    return { op: { kind: 'unset', column, path }, implies: null };
  }
  return { op: { kind: 'set', column, path, value: decoded }, implies: impliedColumn(decoded) };
}

/** `{"__type": "Relation", "className": "Post"}` declares a Relation column without members. */
function isRelationDeclaration(value: Json): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value.__type !== 'Relation') return false;
  if (typeof value.className !== 'string' || !isValidTableName(value.className)) {
    throw svcError('invalidParameter', 'a Relation needs a valid className');
  }
  return true;
}

function parseDotted(
  value: Json,
  column: string,
  path: readonly string[],
  key: string,
  timeZone: string,
  existing: ColumnSchema | undefined,
): { op: FieldOp | null; implies: ColumnSchema | null } {
  const arrayStep = existing?.type === 'Array' && isIndexSegment(path[0] ?? '');
  if (existing && existing.type !== 'Object' && !arrayStep) {
    throw svcError('typeMismatch', key, describeColumn(existing), 'Object');
  }
  const implies: ColumnSchema = arrayStep ? { type: 'Array' } : { type: 'Object' };
  if (isOpObject(value)) {
    const parsed = parseFieldOp(value, column, path, key, timeZone);
    return { op: parsed.op, implies };
  }
  return { op: { kind: 'set', column, path, value: decodeValue(value, key, timeZone) }, implies };
}

function assertDepth(root: Json, maxDepth: number): void {
  const stack: Array<{ value: Json; depth: number }> = [{ value: root, depth: 1 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > maxDepth) throw svcError('bodyTooDeep', maxDepth);
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
}
