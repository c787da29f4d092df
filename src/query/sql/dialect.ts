import type { GeoPointValue } from '../../core/values.js';
import type { Sql } from './fragment.js';
import type { StorageKind } from './layout.js';

/** A JSON value inside a JSON column (opaque: each dialect represents it its own way). */
export interface JsonNode {
  readonly dialect: string;
}

/** JSON types a predicate can test; `nullish` is missing or JSON null, `present` its negation. */
export type JsonKind = 'nullish' | 'present' | 'true' | 'false' | 'number' | 'string' | 'object' | 'array';

/**
 * The per-dialect hooks of the query compiler: quoting, placeholders, JSON access, and the few
 * functions SQL lacks natively (safe regex, great-circle distance, day in a time zone, deep JSON
 * equality). Everything else is shared. Predicates may evaluate to NULL where they mean false; `not`
 * must treat NULL as false. The find, count and aggregate compilers see only this part.
 */
export interface SqlQueryDialect {
  readonly name: 'sqlite' | 'postgres';
  /** A REAL sum past the double range is stored as Infinity (SQLite), instead of failing (PostgreSQL's 22003). */
  readonly sumsOverflowToInfinity: boolean;
  quoteIdent(name: string): string;
  /** The placeholder of the `index`-th parameter (1-based): `?` or `$1`. */
  placeholder(index: number): string;
  readonly trueLiteral: string;
  readonly falseLiteral: string;
  /** Negation treating a NULL predicate as false. */
  not(predicate: Sql): Sql;
  /** The bound form of a Boolean column value. */
  booleanParam(value: boolean): unknown;
  /** Text comparison in code point order (SQLite BINARY, PostgreSQL `COLLATE "C"`). */
  binaryText(expr: Sql): Sql;

  jsonRoot(column: Sql): JsonNode;
  jsonChild(node: JsonNode, key: string): JsonNode;
  jsonIs(node: JsonNode, kind: JsonKind): Sql;
  /** The number a node holds (only meaningful where `jsonIs(node, 'number')`). */
  jsonNumber(node: JsonNode): Sql;
  /** The text a node holds (only meaningful where `jsonIs(node, 'string')`). */
  jsonText(node: JsonNode): Sql;
  /** A FROM item over the elements of an array node (empty for non-arrays) and the element node. */
  jsonElements(node: JsonNode, alias: string): { readonly from: Sql; readonly element: JsonNode };
  /** Deep equality of an object/array node with a tagged JSON text (the query language's equality). */
  jsonEquals(node: JsonNode, json: string): Sql;
  /**
   * A FROM item over a bound JSON array of strings or numbers (one parameter, however long the
   * list) and the expression of one of its values: long `$in`/`$all` lists compile to a join
   * with it instead of one term per value.
   */
  boundValues(kind: 'text' | 'number', json: string, alias: string): { readonly from: Sql; readonly value: Sql };

  /** 1 when `text` matches the safe regex (see src/query/regex). */
  regex(text: Sql, pattern: string, flags: string): Sql;
  /** Great-circle distance in radians between the (lat, lng) columns and a point. */
  geoDistance(lat: Sql, lng: Sql, point: GeoPointValue): Sql;
  /** `YYYY-MM-DD` of an epoch-ms expression in an IANA time zone. */
  dayOf(epochMs: Sql, timeZone: string): Sql;
  /** SUM that is 0, not NULL, over no values. */
  sum(expr: Sql): Sql;
  /** One ORDER BY term: ascending puts NULL first, descending last. */
  orderTerm(expr: Sql, descending: boolean): Sql;

  /**
   * Longest physical name accepted; longer ones are refused. PostgreSQL keeps 63 bytes, so its
   * `quoteIdent` hashes longer names down to 63 (long-identifier.ts, D60) and this limit is generous.
   */
  readonly maxIdentifierLength: number;
  /**
   * Present where tables keep an ACL's read principals in their own column (acl-read-column.ts;
   * SQLite): whether `text` contains `needle`. Absent: the ACL filter reads the JSON (PostgreSQL's
   * jsonb lookups are cheap).
   */
  readonly aclReadColumn?: { contains(text: Sql, needle: string): Sql };
  /**
   * Present where tables keep an ACL's read principals as an array (PostgreSQL, `text[]` under a
   * GIN index, D161): the condition that the array shares an element with the caller's principals.
   */
  readonly aclReadArray?: { readonly type: string; overlaps(column: Sql, principals: readonly string[]): Sql };
  /**
   * Present where a find's LIMIT is written into its text (PostgreSQL, D162): a prepared statement's
   * generic plan then knows how few rows it returns and walks an index in order instead of sorting
   * a tenth of the table. Returns the clause for a validated limit and skip. Absent (SQLite): both
   * are parameters.
   */
  readonly inlineLimit?: (limit: number, skip: number) => Sql | null;
}

/**
 * The DDL, bookkeeping and locking hooks of a SQL engine, used by the write and DDL compilers
 * (write-compiler.ts, ddl-compiler.ts, bookkeeping-sql.ts): column types, insert-or-skip, row locks
 * for read-modify-write, index column spelling, and the insertion order of bookkeeping rows.
 * `RETURNING` and `IF NOT EXISTS` are shared by both dialects.
 */
export interface SqlSchemaDialect {
  /** The SQL type of a physical column. */
  columnType(kind: StorageKind): string;
  /** `ALTER TABLE t <addColumn> "c" TYPE`: PostgreSQL adds `IF NOT EXISTS` (SQLite has none; its DDL runs under the write lock). */
  readonly addColumn: string;
  /** `ALTER TABLE t <dropColumn> "c"`: PostgreSQL adds `IF EXISTS`. */
  readonly dropColumn: string;
  /**
   * Present where an index is walked only in the order it was declared in (PostgreSQL: its null
   * order and collation must be those of the ORDER BY, D160): one index column spelled as the
   * ascending ORDER BY term of `orderTerm` spells it (`text` for a String column, compared in code
   * point order). Absent (SQLite): index columns are plain names.
   */
  readonly indexTerm?: (quoted: string, text: boolean) => string;
  /** Appended to the CREATE TABLE of a table only ever read by its primary key (SQLite `WITHOUT ROWID`). */
  readonly keyOnlyTable: string;
  /** An INSERT that skips a row whose key exists: `<prefix> "t" (...) VALUES (...)<suffix>`. */
  readonly insertIgnore: { readonly prefix: string; readonly suffix: string };
  /** Appended to the SELECT of a read-modify-write inside a transaction (PostgreSQL `FOR UPDATE`). */
  readonly lockRow: string;
  /**
   * Insertion order of bookkeeping rows: an extra column definition (empty when the engine has an
   * implicit one) and the ORDER BY expression.
   */
  readonly insertionOrder: { readonly column: string; readonly orderBy: string };
}

/** A whole SQL engine: its query part and its DDL/locking part (the built-in dialect objects implement both). */
export interface SqlDialect extends SqlQueryDialect, SqlSchemaDialect {}
