import { isValidFieldName, isValidTableName } from '../../core/names.js';
import type { FieldRef, TableSchema } from '../plan.js';
import { schemaColumn } from '../schema-lookup.js';
import type { JsonNode, SqlQueryDialect } from './dialect.js';
import { raw, type Sql } from './fragment.js';
import { ACL_READ_COLUMN } from './acl-read-column.js';
import { geoLatColumn, geoLngColumn, physicalTableName, relationTableName } from './layout.js';

/** What a compiler needs about the namespace: its name and the schema of any table. */
export interface SqlSchemaView {
  readonly namespace: string;
  /** Schema of a table of the namespace, or null when it does not exist. */
  schema(className: string): TableSchema | null;
}

/** Shared state of one compilation: dialect, schemas, fresh aliases. */
export interface CompileState {
  readonly dialect: SqlQueryDialect;
  readonly view: SqlSchemaView;
  alias(prefix: string): string;
}

export function newState(dialect: SqlQueryDialect, view: SqlSchemaView): CompileState {
  let n = 0;
  return { dialect, view, alias: (prefix) => `${prefix}${++n}` };
}

/** The table a where is compiled against: its alias in the statement and its schema. */
export interface TableScope {
  readonly alias: string;
  readonly className: string;
  readonly schema: TableSchema | null;
}

/** Physical form of a field, by the column's schema type (src/query/sql/layout.ts). */
export type Slot =
  /** No such column: always missing. */
  | { readonly kind: 'none' }
  /** `system`: objectId, createdAt or updatedAt (objectId's primary key keeps the default collation). */
  | { readonly kind: 'scalar'; readonly type: 'String' | 'Number' | 'Boolean' | 'Date' | 'Pointer'; readonly expr: Sql; readonly targetClass?: string; readonly system?: true }
  | { readonly kind: 'geo'; readonly lat: Sql; readonly lng: Sql }
  /**
   * Array/Object/File columns and paths into Object columns. `shape` is what the value can be:
   * an Array column holds arrays, Object and File columns objects, a path anything.
   */
  | { readonly kind: 'json'; readonly node: JsonNode; readonly shape: JsonShape }
  | { readonly kind: 'relation'; readonly column: string; readonly targetClass: string | undefined };

export type JsonShape = 'array' | 'object' | 'any';

const SYSTEM = { objectId: 'String', createdAt: 'Date', updatedAt: 'Date' } as const;

/** `t0."column"`; the column name is checked against the naming rules first. */
export function columnRef(state: CompileState, scope: TableScope, column: string): Sql {
  if (!Object.hasOwn(SYSTEM, column) && column !== ACL_READ_COLUMN && !isValidFieldName(column) && !/^_[A-Za-z][A-Za-z0-9_]*$/.test(column) && !/^[A-Za-z][A-Za-z0-9_]*\$(lat|lng)$/.test(column)) {
    throw new Error(`[svcbase] [query] invalid column name in plan: ${JSON.stringify(column)}`);
  }
  return raw(`${scope.alias}.${state.dialect.quoteIdent(column)}`);
}

/** `"<ns>__<Class>"`, checked. */
export function tableRef(state: CompileState, className: string): Sql {
  if (!isValidTableName(className)) throw new Error(`[svcbase] [query] invalid class name in plan: ${JSON.stringify(className)}`);
  return raw(state.dialect.quoteIdent(physicalTableName(state.view.namespace, className)));
}

/** `"<ns>__<Class>$<column>"`, checked. */
export function relationRef(state: CompileState, className: string, column: string): Sql {
  if (!isValidTableName(className) || !isValidFieldName(column)) {
    throw new Error(`[svcbase] [query] invalid relation in plan: ${className}.${column}`);
  }
  return raw(state.dialect.quoteIdent(relationTableName(state.view.namespace, className, column)));
}

export function resolveSlot(field: FieldRef, scope: TableScope, state: CompileState): Slot {
  const { column, path } = field;
  if (Object.hasOwn(SYSTEM, column)) {
    return path.length > 0 ? { kind: 'none' } : { kind: 'scalar', type: SYSTEM[column as keyof typeof SYSTEM], expr: columnRef(state, scope, column), system: true };
  }
  const entry = schemaColumn(scope.schema, column);
  if (!entry) return { kind: 'none' };
  if (path.length > 0) {
    if (entry.type !== 'Object') return { kind: 'none' };
    let node = state.dialect.jsonRoot(columnRef(state, scope, column));
    for (const key of path) node = state.dialect.jsonChild(node, key);
    return { kind: 'json', node, shape: 'any' };
  }
  switch (entry.type) {
    case 'String':
    case 'Number':
    case 'Boolean':
    case 'Date':
    case 'Pointer':
      return entry.targetClass === undefined
        ? { kind: 'scalar', type: entry.type, expr: columnRef(state, scope, column) }
        : { kind: 'scalar', type: entry.type, expr: columnRef(state, scope, column), targetClass: entry.targetClass };
    case 'GeoPoint':
      return { kind: 'geo', lat: columnRef(state, scope, geoLatColumn(column)), lng: columnRef(state, scope, geoLngColumn(column)) };
    case 'Array':
    case 'Object':
    case 'File':
      return { kind: 'json', node: state.dialect.jsonRoot(columnRef(state, scope, column)), shape: entry.type === 'Array' ? 'array' : 'object' };
    case 'Relation':
      return { kind: 'relation', column, targetClass: entry.targetClass };
  }
}
