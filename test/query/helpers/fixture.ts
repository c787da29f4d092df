import Database from 'better-sqlite3';
import type { DateValue, GeoPointValue, PointerValue, StoredRecord, Value } from '../../../src/core/values.js';
import { dateMs, dateValue } from '../../../src/core/values.js';
import type { EvalEnv } from '../../../src/query/evaluate/index.js';
import { applyProjection, runAggregate, runCount, runFind } from '../../../src/query/evaluate/index.js';
import type { AggregatePlan, ColumnSchema, FindPlan, TableSchema, WhereNode } from '../../../src/query/plan.js';
import { type SqlDialect, compileAggregate, compileCount, compileFind, registerSqliteFunctions, sqliteAdapterDialect, sqliteDialect } from '../../../src/query/sql/index.js';
import { ACL_READ_COLUMN, aclReadText, carriesAclRead } from '../../../src/query/sql/acl-read-column.js';
import { geoLatColumn, geoLngColumn, physicalTableName, relationTableName, STORAGE_KIND } from '../../../src/query/sql/layout.js';

/** One table of a fixture: schema, records and Relation memberships (`column -> owner -> related ids`). */
export interface TableData {
  readonly schema: TableSchema;
  readonly records: readonly StoredRecord[];
  readonly relations?: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>>;
}

export const NAMESPACE = 'app';

/**
 * The same data twice: in memory (an EvalEnv over arrays) and in a SQLite ':memory:' database laid
 * out exactly as src/query/sql/layout.ts says. Each query runs on both.
 */
export class Fixture {
  readonly db: Database.Database;
  private readonly tables = new Map<string, TableData>();

  constructor(data: readonly TableData[]) {
    this.db = new Database(':memory:');
    registerSqliteFunctions(this.db);
    for (const table of data) this.add(table);
  }

  close(): void {
    this.db.close();
  }

  schema(className: string): TableSchema | null {
    return this.tables.get(className)?.schema ?? null;
  }

  env(className: string): EvalEnv {
    return {
      className,
      records: (c) => this.tables.get(c)?.records ?? [],
      relationMembers: (c, id, column) => {
        const byOwner = this.tables.get(c)?.relations;
        const owners = byOwner && Object.hasOwn(byOwner, column) ? byOwner[column]! : {};
        return new Set(Object.hasOwn(owners, id) ? owners[id] : []);
      },
      schema: (c) => this.schema(c),
    };
  }

  view() {
    return { namespace: NAMESPACE, schema: (c: string) => this.schema(c) };
  }

  memoryFind(className: string, plan: FindPlan): StoredRecord[] {
    return runFind(this.tables.get(className)?.records ?? [], plan, this.env(className)).map(normalize);
  }

  /** The SQLite adapter's dialect by default; `sqliteDialect` (what other stores get) reads the ACL's JSON instead of `ACL$read`. */
  sqlFind(className: string, plan: FindPlan, dialect: SqlDialect = sqliteAdapterDialect): StoredRecord[] {
    const schema = this.schema(className);
    if (!schema) return [];
    const q = compileFind(className, plan, this.view(), dialect);
    const rows = this.db.prepare(q.sql).all(...q.parameters) as Array<Record<string, unknown>>;
    return rows.map((row) => normalize(applyProjection(decodeRow(schema, row), plan.projection)));
  }

  memoryCount(className: string, where: WhereNode): number {
    return runCount(this.tables.get(className)?.records ?? [], where, this.env(className));
  }

  sqlCount(className: string, where: WhereNode, dialect: SqlDialect = sqliteAdapterDialect): number {
    if (!this.schema(className)) return 0;
    const q = compileCount(className, where, this.view(), dialect);
    return (this.db.prepare(q.sql).get(...q.parameters) as { n: number }).n;
  }

  memoryAggregate(className: string, plan: AggregatePlan): Array<Record<string, Value>> {
    if (!this.schema(className)) return [];
    return runAggregate(this.tables.get(className)?.records ?? [], plan, this.env(className));
  }

  sqlAggregate(className: string, plan: AggregatePlan): Array<Record<string, Value>> {
    if (!this.schema(className)) return [];
    const { query, decode } = compileAggregate(className, plan, this.view(), sqliteAdapterDialect);
    return (this.db.prepare(query.sql).all(...query.parameters) as Array<Record<string, unknown>>).map((r) => decode(r));
  }

  private add(table: TableData): void {
    const { schema } = table;
    this.tables.set(schema.className, table);
    const q = (n: string) => `"${n.replace(/"/g, '""')}"`;
    const cols = ['"objectId" TEXT PRIMARY KEY', '"createdAt" INTEGER NOT NULL', '"updatedAt" INTEGER NOT NULL'];
    for (const [name, c] of Object.entries(schema.columns)) {
      if (c.type === 'Relation') {
        const rel = q(relationTableName(NAMESPACE, schema.className, name));
        this.db.exec(`CREATE TABLE ${rel} ("owningId" TEXT NOT NULL, "relatedId" TEXT NOT NULL, PRIMARY KEY ("owningId", "relatedId"))`);
        const insert = this.db.prepare(`INSERT INTO ${rel} VALUES (?, ?)`);
        for (const [owner, ids] of Object.entries(table.relations?.[name] ?? {})) for (const id of ids) insert.run(owner, id);
      } else if (c.type === 'GeoPoint') cols.push(`${q(geoLatColumn(name))} REAL`, `${q(geoLngColumn(name))} REAL`);
      else cols.push(`${q(name)} ${sqliteDialect.columnType(STORAGE_KIND[c.type])}`);
      if (carriesAclRead(name, c)) cols.push(`${q(ACL_READ_COLUMN)} TEXT`);
    }
    const tableName = q(physicalTableName(NAMESPACE, schema.className));
    this.db.exec(`CREATE TABLE ${tableName} (${cols.join(', ')})`);
    for (const record of table.records) {
      const params = encodeRecord(schema, record);
      const names = Object.keys(params);
      this.db.prepare(`INSERT INTO ${tableName} (${names.map(q).join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(...Object.values(params));
    }
  }
}

function encodeRecord(schema: TableSchema, record: StoredRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    objectId: record.objectId,
    createdAt: dateMs(record.createdAt),
    updatedAt: dateMs(record.updatedAt),
  };
  for (const [name, c] of Object.entries(schema.columns)) {
    const v = record[name];
    if (v === undefined || v === null || c.type === 'Relation') continue;
    if (c.type === 'GeoPoint') {
      out[geoLatColumn(name)] = (v as GeoPointValue).latitude;
      out[geoLngColumn(name)] = (v as GeoPointValue).longitude;
    } else out[name] = encodeColumn(c, v);
    if (carriesAclRead(name, c)) out[ACL_READ_COLUMN] = aclReadText(v);
  }
  return out;
}

function encodeColumn(c: ColumnSchema, v: Value): unknown {
  switch (c.type) {
    case 'Boolean':
      return v ? 1 : 0;
    case 'Date':
      return dateMs(v as DateValue);
    case 'Pointer':
      return (v as PointerValue).objectId;
    case 'File':
    case 'Array':
    case 'Object':
      return JSON.stringify(v);
    default:
      return v;
  }
}

function decodeRow(schema: TableSchema, row: Record<string, unknown>): StoredRecord {
  const out: Record<string, Value> = {
    objectId: row.objectId as string,
    createdAt: dateValue(row.createdAt as number),
    updatedAt: dateValue(row.updatedAt as number),
  };
  for (const [name, c] of Object.entries(schema.columns)) {
    if (c.type === 'Relation') continue;
    if (c.type === 'GeoPoint') {
      const lat = row[geoLatColumn(name)];
      const lng = row[geoLngColumn(name)];
      if (typeof lat === 'number' && typeof lng === 'number') out[name] = { __type: 'GeoPoint', latitude: lat, longitude: lng };
      continue;
    }
    const raw = row[name];
    if (raw === null || raw === undefined) continue;
    switch (c.type) {
      case 'Boolean':
        out[name] = raw === 1;
        break;
      case 'Date':
        out[name] = dateValue(raw as number);
        break;
      case 'Pointer':
        out[name] = { __type: 'Pointer', className: c.targetClass ?? '', objectId: raw as string };
        break;
      case 'File':
      case 'Array':
      case 'Object':
        out[name] = JSON.parse(raw as string) as Value;
        break;
      default:
        out[name] = raw as Value;
    }
  }
  return out as StoredRecord;
}

/** Drops top-level null columns (null and missing are the same value). */
export function normalize(record: StoredRecord): StoredRecord {
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(record)) if (v !== null && v !== undefined) out[k] = v;
  return out as StoredRecord;
}

/** A record with `createdAt`/`updatedAt` at `ms` (epoch ms). */
export function rec(objectId: string, ms: number, fields: Record<string, Value> = {}): StoredRecord {
  return { objectId, createdAt: dateValue(ms), updatedAt: dateValue(ms), ...fields } as StoredRecord;
}
