import type { Application } from '../app/application.js';
import type { GaugeSource, GaugeValue } from '../core/metrics.js';
import { INTERNAL_TABLES } from '../records/index.js';
import type { StorageAdapter } from '../storage/port.js';

const ALL = { kind: 'all_records' } as const;

/**
 * `svcbase_table_rows{app,table}`: the records of every table of every application, counted through
 * the storage port (so every adapter has it), each count within a 2 s budget. Read only when asked
 * (`/metrics`, the console), at most every 15 s. svcbase's internal tables are left out.
 */
export function tableRowsGauge(storage: StorageAdapter, applications: ReadonlyMap<string, Application>): GaugeSource {
  return {
    name: 'svcbase_table_rows',
    help: 'Records per table, by application and table (read when asked, at most every 15 s).',
    async read() {
      const values: GaugeValue[] = [];
      if (!storage.listTables) return values;
      for (const app of applications.values()) {
        const tables = await storage.listTables(app.namespace);
        for (const table of tables.sort()) {
          if (INTERNAL_TABLES.has(table)) continue;
          const rows = await storage.count({ namespace: app.namespace, className: table }, ALL, { budgetMs: 2000 });
          values.push({ app: app.applicationId, labels: { table }, value: rows });
        }
      }
      return values;
    },
  };
}
