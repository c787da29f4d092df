import type { GeoPointValue } from '../../core/values.js';
import type { JsonKind, JsonNode, SqlDialect } from './dialect.js';
import { param, raw, sql, type Sql } from './fragment.js';
import type { StorageKind } from './layout.js';
import { shortIdentifier } from './long-identifier.js';
import { postgresRegex } from './postgres-regex.js';

/** Bytes PostgreSQL keeps of an identifier (NAMEDATALEN - 1); longer physical names are hashed (D60). */
const PG_NAME_BYTES = 63;

/** A jsonb expression. */
interface PgJson extends JsonNode {
  readonly dialect: 'postgres';
  readonly expr: Sql;
}

function asNode(node: JsonNode): PgJson {
  if (node.dialect !== 'postgres') throw new Error('[svcbase] [query] JSON node of another dialect');
  return node as PgJson;
}

const TYPES: Readonly<Record<Exclude<JsonKind, 'nullish' | 'present'>, string>> = {
  true: "= 'boolean' AND {e} = 'true'::jsonb",
  false: "= 'boolean' AND {e} = 'false'::jsonb",
  number: "= 'number'",
  string: "= 'string'",
  object: "= 'object'",
  array: "= 'array'",
};

const COLUMN_TYPES: Readonly<Record<StorageKind, string>> = {
  text: 'text',
  number: 'double precision',
  boolean: 'boolean',
  epoch_ms: 'bigint',
  json: 'jsonb',
};

/**
 * The ACL read filter over `"ACL$read" text[]` (D161). Everyone's `*` is written into the text, the
 * caller's own principals bound: the planner knows from the column's statistics how many rows `*`
 * admits, also in a prepared statement's generic plan (a bound array gets a fixed guess of 0.5%,
 * and a plan made for so few rows sorts them instead of walking an index in order).
 */
function aclReadOverlaps(column: Sql, principals: readonly string[]): Sql {
  const everyone = principals.includes('*') ? [sql`${column} && '{*}'::text[]`] : [];
  const named = principals.filter((key) => key !== '*');
  const own = named.length > 0 ? [sql`${column} && ${param(named)}::text[]`] : [];
  const terms = [...everyone, ...own];
  if (terms.length === 0) return raw('FALSE');
  return terms.length === 1 ? terms[0]! : sql`(${terms[0]!} OR ${terms[1]!})`;
}

/**
 * PostgreSQL (run by svcbase/postgres): `$n` placeholders, jsonb
 * operators over the JSON text columns, `COLLATE "C"` for code point order, `NULLS FIRST/LAST`,
 * haversine in SQL, POSIX regular expressions. Known differences from the reference evaluator,
 * to settle when the adapter lands: regex dialect (POSIX ARE vs the JavaScript subset), the last
 * bits of float math in the distance, and File/GeoPoint equality inside JSON (jsonb compares
 * whole objects). Writes: text/double precision/boolean/bigint (Dates as epoch ms, so millisecond
 * precision survives)/jsonb columns, `ON CONFLICT DO NOTHING`, `FOR UPDATE` row locks, a `seq`
 * bigserial for insertion order.
 */
export const postgresDialect: SqlDialect = {
  name: 'postgres',
  // Past 63 bytes PostgreSQL would truncate: long names become `<prefix>$h<hash>` (long-identifier.ts).
  quoteIdent: (name) => `"${shortIdentifier(name, PG_NAME_BYTES).replace(/"/g, '""')}"`,
  placeholder: (index) => `$${index}`,
  sumsOverflowToInfinity: false,
  trueLiteral: 'TRUE',
  falseLiteral: 'FALSE',
  not: (p) => sql`NOT COALESCE(${p}, FALSE)`,
  booleanParam: (value) => value,
  binaryText: (expr) => sql`(${expr} COLLATE "C")`,

  jsonRoot: (column) => ({ dialect: 'postgres', expr: sql`(${column})::jsonb` }) as PgJson,
  jsonChild: (node, key) => ({ dialect: 'postgres', expr: sql`(${asNode(node).expr} -> ${param(key)})` }) as PgJson,
  jsonIs(node, kind) {
    const e = asNode(node).expr;
    if (kind === 'nullish') return sql`(COALESCE(jsonb_typeof(${e}), 'null') = 'null')`;
    if (kind === 'present') return sql`(COALESCE(jsonb_typeof(${e}), 'null') <> 'null')`;
    const [head, tail] = TYPES[kind].split('{e}');
    return tail === undefined ? sql`(jsonb_typeof(${e}) ${raw(head!)})` : sql`(jsonb_typeof(${e}) ${raw(head!)}${e}${raw(tail)})`;
  },
  jsonNumber: (node) => {
    const e = asNode(node).expr;
    return sql`(CASE WHEN jsonb_typeof(${e}) = 'number' THEN (${e} #>> '{}')::float8 END)`;
  },
  jsonText: (node) => sql`(${asNode(node).expr} #>> '{}')`,
  jsonElements(node, alias) {
    const e = asNode(node).expr;
    const from = sql`jsonb_array_elements(CASE WHEN jsonb_typeof(${e}) = 'array' THEN ${e} ELSE '[]'::jsonb END) AS ${raw(alias)}(value)`;
    return { from, element: { dialect: 'postgres', expr: raw(`${alias}.value`) } as PgJson };
  },
  // `::text::jsonb`: the parameter is bound as text (a driver would JSON-encode a jsonb-typed string again).
  jsonEquals: (node, json) => sql`(${asNode(node).expr} = ${param(json)}::text::jsonb)`,
  boundValues: (kind, json, alias) => ({
    from: sql`jsonb_array_elements_text(${param(json)}::text::jsonb) AS ${raw(alias)}(value)`,
    value: raw(kind === 'number' ? `(${alias}.value)::float8` : `${alias}.value`),
  }),

  // The safe-regex subset spelled out as an ARE, same meaning as the other backends (postgres-regex.ts, D64).
  regex: (text, pattern, flags) => postgresRegex(text, pattern, flags),
  geoDistance: (lat: Sql, lng: Sql, point: GeoPointValue) =>
    sql`(2 * asin(sqrt(least(1, power(sin(radians(${param(point.latitude)} - ${lat}) / 2), 2) + cos(radians(${lat})) * cos(radians(${param(point.latitude)})) * power(sin(radians(${param(point.longitude)} - ${lng}) / 2), 2)))))`,
  dayOf: (epochMs, timeZone) => sql`to_char(to_timestamp(${epochMs} / 1000.0) AT TIME ZONE ${param(timeZone)}, 'YYYY-MM-DD')`,
  sum: (expr) => sql`COALESCE(SUM(${expr}), 0)`,
  orderTerm: (expr, descending) => sql`${expr} ${raw(descending ? 'DESC NULLS LAST' : 'ASC NULLS FIRST')}`,

  // Physical names are hashed down to 63 bytes by quoteIdent, so longer logical names are accepted.
  maxIdentifierLength: 1024,
  columnType: (kind) => COLUMN_TYPES[kind],
  addColumn: 'ADD COLUMN IF NOT EXISTS',
  dropColumn: 'DROP COLUMN IF EXISTS',
  keyOnlyTable: '',
  insertIgnore: { prefix: 'INSERT INTO', suffix: ' ON CONFLICT DO NOTHING' },
  lockRow: ' FOR UPDATE',
  insertionOrder: { column: ', "seq" bigserial', orderBy: '"seq"' },
  aclReadArray: { type: 'text[]', overlaps: aclReadOverlaps },
  // LIMIT as written, OFFSET too when 0 (the first page); a later page keeps its OFFSET a parameter,
  // so paging does not make one prepared statement per page.
  inlineLimit: (limit, skip) => (Number.isSafeInteger(limit) && limit >= 0 ? (skip === 0 ? raw(`LIMIT ${limit}`) : sql`LIMIT ${raw(String(limit))} OFFSET ${param(skip)}`) : null),
  indexTerm: (quoted, text) => `${quoted}${text ? ' COLLATE "C"' : ''} ASC NULLS FIRST`,
};
