import type { GeoPointValue } from '../../core/values.js';
import type { JsonKind, JsonNode, SqlDialect } from './dialect.js';
import { param, raw, sql, type Sql } from './fragment.js';
import type { StorageKind } from './layout.js';
import { merged } from '../../core/copy.js';

/** A value at a JSON path of a JSON text expression, or an element row of `json_each`. */
type SqliteJson =
  | { readonly dialect: 'sqlite'; readonly kind: 'path'; readonly base: Sql; readonly path: readonly string[] }
  | { readonly dialect: 'sqlite'; readonly kind: 'element'; readonly alias: string };

function asNode(node: JsonNode): SqliteJson {
  if (node.dialect !== 'sqlite') throw new Error('[svcbase] [query] JSON node of another dialect');
  return node as SqliteJson;
}

/** `$."a"."b"`: keys are validated sub-keys (letters, digits, `_`, `-`), bound as a parameter. */
/** The SQLite JSON path of a path of keys (`$."a"."b"`), as the dialect binds it. */
export function jsonPath(path: readonly string[]): string {
  return '$' + path.map((k) => `."${k}"`).join('');
}

function typeOf(node: SqliteJson): Sql {
  return node.kind === 'element' ? raw(`${node.alias}.type`) : sql`json_type(${node.base}, ${param(jsonPath(node.path))})`;
}

function valueOf(node: SqliteJson): Sql {
  return node.kind === 'element' ? raw(`${node.alias}.value`) : sql`json_extract(${node.base}, ${param(jsonPath(node.path))})`;
}

const COLUMN_TYPES: Readonly<Record<StorageKind, string>> = { text: 'TEXT', number: 'REAL', boolean: 'INTEGER', epoch_ms: 'INTEGER', json: 'TEXT' };

const TYPE_TESTS: Readonly<Record<Exclude<JsonKind, 'nullish' | 'present'>, string>> = {
  true: "= 'true'",
  false: "= 'false'",
  number: "IN ('integer', 'real')",
  string: "= 'text'",
  object: "= 'object'",
  array: "= 'array'",
};

/**
 * SQLite: `"` quoting, `?` placeholders, JSON1 (`json_type`, `json_extract`, `json_each`), and the
 * functions `registerSqliteFunctions` installs: `svc_regex`, `svc_geo_distance`, `svc_day`,
 * `svc_json_equal`. Writes: TEXT/REAL/INTEGER columns (Booleans 0/1, Dates epoch ms, JSON as text),
 * `WITHOUT ROWID` key-only tables, `INSERT OR IGNORE`, the implicit `rowid` for insertion order.
 */
export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  quoteIdent: (name) => `"${name.replace(/"/g, '""')}"`,
  placeholder: () => '?',
  sumsOverflowToInfinity: true,
  trueLiteral: '1',
  falseLiteral: '0',
  not: (p) => sql`NOT COALESCE(${p}, 0)`,
  booleanParam: (value) => (value ? 1 : 0),
  binaryText: (expr) => expr,

  jsonRoot: (column) => ({ dialect: 'sqlite', kind: 'path', base: column, path: [] }) as SqliteJson,
  jsonChild(node, key) {
    const n = asNode(node);
    if (n.kind === 'path') return merged(n, { path: [...n.path, key] });
    const base = raw(`CASE WHEN ${n.alias}.type = 'object' THEN ${n.alias}.value END`);
    return { dialect: 'sqlite', kind: 'path', base, path: [key] } as SqliteJson;
  },
  jsonIs(node, kind) {
    const n = asNode(node);
    const t = typeOf(n);
    // json_type is NULL for a missing path (never for an element row).
    if (kind === 'nullish') return n.kind === 'element' ? sql`(${t} = 'null')` : sql`(COALESCE(${t}, 'null') = 'null')`;
    if (kind === 'present') return n.kind === 'element' ? sql`(${t} <> 'null')` : sql`(COALESCE(${t}, 'null') <> 'null')`;
    return sql`(${t} ${raw(TYPE_TESTS[kind])})`;
  },
  jsonNumber: (node) => valueOf(asNode(node)),
  jsonText: (node) => valueOf(asNode(node)),
  jsonElements(node, alias) {
    const n = asNode(node);
    const from = n.kind === 'element' ? raw(`json_each(${n.alias}.value) AS ${alias}`) : sql`json_each(${n.base}, ${param(jsonPath(n.path))}) AS ${raw(alias)}`;
    return { from, element: { dialect: 'sqlite', kind: 'element', alias } as SqliteJson };
  },
  jsonEquals: (node, json) => sql`svc_json_equal(${valueOf(asNode(node))}, ${param(json)})`,
  boundValues: (_kind, json, alias) => ({ from: sql`json_each(${param(json)}) AS ${raw(alias)}`, value: raw(`${alias}.value`) }),

  regex: (text, pattern, flags) => sql`svc_regex(${param(pattern)}, ${param(flags)}, ${text})`,
  geoDistance: (lat, lng, point: GeoPointValue) => sql`svc_geo_distance(${lat}, ${lng}, ${param(point.latitude)}, ${param(point.longitude)})`,
  dayOf: (epochMs, timeZone) => sql`svc_day(${epochMs}, ${param(timeZone)})`,
  sum: (expr) => sql`TOTAL(${expr})`,
  orderTerm: (expr, descending) => sql`${expr} ${raw(descending ? 'DESC' : 'ASC')}`,

  maxIdentifierLength: 200,
  columnType: (kind) => COLUMN_TYPES[kind],
  addColumn: 'ADD COLUMN',
  dropColumn: 'DROP COLUMN',
  keyOnlyTable: ' WITHOUT ROWID',
  insertIgnore: { prefix: 'INSERT OR IGNORE INTO', suffix: '' },
  // Writers hold the database lock for the whole IMMEDIATE transaction.
  lockRow: '',
  insertionOrder: { column: '', orderBy: 'rowid' },
};

/**
 * The dialect of svcbase's own SQLite adapter: `sqliteDialect`, and the ACL filter reads the
 * `ACL$read` column the adapter's tables keep (acl-read-column.ts). Not for other stores using the
 * compilers: their rows would have to fill that column too, or every record with an ACL would read
 * as public. `sqliteDialect` reads the ACL's JSON.
 */
export const sqliteAdapterDialect: SqlDialect = {
  ...sqliteDialect,
  aclReadColumn: { contains: (text, needle) => sql`instr(${text}, ${param(needle)}) > 0` },
};
