import type { ColumnType, GeoPointValue, PointerValue, Value } from '../core/values.js';

/**
 * Validated query plans. The wire query (where JSON, order, keys, limit, ...) is parsed once into
 * these frozen trees; adapters trust them and never see wire JSON.
 *
 * Node kinds are a string-literal union: every consumer (memory evaluator, each SQL dialect)
 * dispatches through a `Record<WhereNode['kind'], handler>`, so adding a kind fails to compile until
 * all of them handle it.
 */

/** A column, or a path into an Object column (`address.city` → column `address`, path `['city']`). */
export interface FieldRef {
  readonly column: string;
  readonly path: readonly string[];
}

export type CompareOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

/** An inner query over another table ($inQuery, $select). `limit` already clamped. */
export interface SubQuery {
  readonly table: string;
  readonly where: WhereNode;
  readonly limit: number;
}

export type WhereNode =
  /** Matches every record (empty where). */
  | { readonly kind: 'all_records' }
  | { readonly kind: 'and'; readonly nodes: readonly WhereNode[] }
  | { readonly kind: 'or'; readonly nodes: readonly WhereNode[] }
  /** `eq` on an array matches when the array contains the value; `ne` is its negation. */
  | { readonly kind: 'compare'; readonly field: FieldRef; readonly op: CompareOp; readonly value: Value }
  | { readonly kind: 'in'; readonly field: FieldRef; readonly negate: boolean; readonly values: readonly Value[] }
  | { readonly kind: 'exists'; readonly field: FieldRef; readonly exists: boolean }
  | { readonly kind: 'contains_all'; readonly field: FieldRef; readonly values: readonly Value[] }
  | { readonly kind: 'regex'; readonly field: FieldRef; readonly pattern: string; readonly flags: string }
  /** Pointer (or Relation, or array of Pointers) column points to a record matching `query`. */
  | { readonly kind: 'in_query'; readonly field: FieldRef; readonly negate: boolean; readonly query: SubQuery }
  /** Value of `field` is among the values of `key` in the records matching `query`. */
  | { readonly kind: 'select'; readonly field: FieldRef; readonly negate: boolean; readonly query: SubQuery; readonly key: FieldRef }
  /** Records that are members of `owner`'s Relation column `key`. */
  | { readonly kind: 'related_to'; readonly owner: PointerValue; readonly key: string }
  /** GeoPoint within `maxRadians` (great-circle) of `point`. */
  | { readonly kind: 'near'; readonly field: FieldRef; readonly point: GeoPointValue; readonly maxRadians: number }
  | { readonly kind: 'within_box'; readonly field: FieldRef; readonly southWest: GeoPointValue; readonly northEast: GeoPointValue }
  /**
   * Records whose `ACL` column is missing or grants `read` (the value `true`) to one of `principals`:
   * access control's read filter, built by the service for non-master callers, never parsed from a
   * client's where.
   */
  | { readonly kind: 'acl_read'; readonly principals: readonly string[] };

export type WhereKind = WhereNode['kind'];

/** Ascending puts null/missing first; ties always break by objectId ascending. */
export interface OrderTerm {
  readonly field: FieldRef;
  readonly descending: boolean;
}

/** Which columns to return. objectId/createdAt/updatedAt are always returned. */
export type Projection =
  | { readonly kind: 'all' }
  | { readonly kind: 'include'; readonly columns: readonly string[] }
  | { readonly kind: 'exclude'; readonly columns: readonly string[] };

export interface FindPlan {
  readonly where: WhereNode;
  /** Empty order with a `near` node: nearest first. Otherwise empty means createdAt ascending. */
  readonly order: readonly OrderTerm[];
  readonly skip: number;
  readonly limit: number;
  readonly projection: Projection;
  /** Set when the where holds a `near` node and no explicit order was given. */
  readonly nearest?: { readonly field: FieldRef; readonly point: GeoPointValue };
}

export type AggregateFn = 'sum' | 'avg' | 'max' | 'min';

export interface AggregateTerm {
  readonly fn: AggregateFn;
  readonly column: string;
  /** Result column name, e.g. `_sumScore`. */
  readonly alias: string;
}

export interface GroupTerm {
  readonly column: string;
  /** Date columns group by calendar day in the application's time zone. */
  readonly byDay: boolean;
}

/** Order over result columns (group columns or aggregate aliases). */
export interface AggregateOrderTerm {
  readonly name: string;
  readonly descending: boolean;
}

export interface AggregatePlan {
  readonly where: WhereNode;
  readonly groupBy: readonly GroupTerm[];
  readonly aggregates: readonly AggregateTerm[];
  readonly groupCount: boolean;
  /** A where over result columns only (aliases, `_count`, group columns). */
  readonly having: WhereNode;
  readonly order: readonly AggregateOrderTerm[];
  readonly skip: number;
  readonly limit: number;
  /** IANA zone used for `byDay` grouping. */
  readonly timeZone: string;
}

/** Column types of a table as the schema knows them; the parser validates plans against it. */
export interface ColumnSchema {
  readonly type: ColumnType;
  /** Target table of a Pointer or Relation column. */
  readonly targetClass?: string;
}

export interface TableSchema {
  readonly className: string;
  readonly columns: Readonly<Record<string, ColumnSchema>>;
  readonly indexes: readonly IndexSpec[];
}

export interface IndexSpec {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
}

export const ALL_RECORDS: WhereNode = Object.freeze({ kind: 'all_records' });
