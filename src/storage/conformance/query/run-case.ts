import type { StoredRecord, Value } from '../../../core/values.js';
import { caseSearchParams, type QueryConformanceCase } from '../../../query/conformance/cases.js';
import { CONFORMANCE_TABLES } from '../../../query/conformance/dataset.js';
import { parseListQuery, referencedClasses, type QuerySettings } from '../../../query/parse.js';
import { DEFAULT_QUERY_LIMITS } from '../../../query/query-limits.js';
import type { TableSchema } from '../../../query/plan.js';
import type { StorageAdapter, TableRef } from '../../port.js';

/** Settings the suite parses with: the default limits, `$regex` enabled, UTC. */
export const CONFORMANCE_SETTINGS: QuerySettings = {
  timeZone: 'UTC',
  features: { regex: true },
  query: DEFAULT_QUERY_LIMITS,
};

/** Creates the data set's tables in `namespace` through the adapter (schema, records, relations). */
export async function seedQueryDataset(adapter: StorageAdapter, namespace: string): Promise<void> {
  for (const table of CONFORMANCE_TABLES) {
    const ref: TableRef = { namespace, className: table.className };
    await adapter.ensureColumns(ref, table.columns);
    for (const record of table.records) await adapter.insert(ref, record);
    for (const [column, owners] of Object.entries(table.relations ?? {})) {
      const targetClass = table.columns[column]!.targetClass!;
      for (const [owner, ids] of Object.entries(owners)) {
        const updatedAt = table.records.find((r) => r.objectId === owner)!.updatedAt;
        await adapter.update(ref, owner, [{ kind: 'add_relation', column, targetClass, ids }], updatedAt);
      }
    }
  }
}

/** What an adapter answered to a case, in the shape of the case's expectations. */
export interface CaseOutcome {
  ids?: string[];
  count?: number;
  rows?: Array<Record<string, Value>>;
  fields?: string[];
}

/** Parses a case with the suite's settings and runs it on the adapter. */
export async function runQueryCase(adapter: StorageAdapter, namespace: string, c: QueryConformanceCase): Promise<CaseOutcome> {
  const params = caseSearchParams(c.params);
  const schemas = new Map<string, TableSchema | null>();
  for (const className of [c.className, ...referencedClasses(params.get('where'))]) {
    schemas.set(className, await adapter.getSchema({ namespace, className }));
  }
  const query = parseListQuery(params, { className: c.className, schema: (n) => schemas.get(n) ?? null, settings: CONFORMANCE_SETTINGS });
  const ref: TableRef = { namespace, className: c.className };
  const out: CaseOutcome = {};
  if (query.kind === 'aggregate') {
    out.rows = await adapter.aggregate(ref, query.plan);
    return out;
  }
  if (query.kind === 'count' || query.count) out.count = await adapter.count(ref, query.kind === 'count' ? query.where : query.plan.where);
  if (query.kind === 'find') {
    const records: StoredRecord[] = await adapter.find(ref, query.plan);
    out.ids = records.map((r) => r.objectId);
    if (c.fields && records[0]) out.fields = Object.keys(records[0]).filter((k) => records[0]![k] !== null).sort();
  }
  return out;
}


/** What a case expects, in the shape `runQueryCase` answers (compare with `toEqual`). */
export function expectedOutcome(c: QueryConformanceCase): CaseOutcome {
  const out: CaseOutcome = {};
  if (c.ids) out.ids = [...c.ids];
  if (c.count !== undefined) out.count = c.count;
  if (c.rows) out.rows = c.rows.map((r) => ({ ...r }));
  if (c.fields) out.fields = [...c.fields];
  return out;
}
