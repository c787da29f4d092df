import type { Application } from '../app/application.js';
import type { ColumnSchema } from '../query/plan.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';

/**
 * Creates a feature table's columns and its one unique index on first use, once per application
 * namespace (a failed setup is retried on the next call). Answers the table's ref.
 */
export function tableSetup(storage: StorageAdapter, className: string, columns: Readonly<Record<string, ColumnSchema>>, uniqueColumn: string): (app: Application) => Promise<TableRef> {
  const ready = new Map<string, Promise<void>>();
  return async (app) => {
    const ref = { namespace: app.namespace, className };
    let pending = ready.get(app.namespace);
    if (!pending) {
      pending = (async () => {
        await storage.ensureColumns(ref, columns);
        await storage.createIndex(ref, { name: `unique_${uniqueColumn}`, columns: [uniqueColumn], unique: true });
      })();
      pending.catch(() => ready.delete(app.namespace));
      ready.set(app.namespace, pending);
    }
    await pending;
    return ref;
  };
}
