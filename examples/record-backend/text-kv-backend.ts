/**
 * A storage adapter in one page: a RecordBackend over a key-value store that holds JSON text
 * (a Map here; Redis, LevelDB or a browser's IndexedDB have the same shape), made into a full
 * svcbase storage adapter by `createStorageAdapter`. Every method is async, as a network store's
 * would be. test/storage/adapter-factory.test.ts runs the whole conformance kit against it.
 *
 * Keys: `s|<namespace>|<class>` schema, `r|<namespace>|<class>|<objectId>` record,
 * `l|<namespace>|<class>|<column>|<ownerId>` Relation links. Names never hold `|`: svcbase validates
 * them before any adapter sees them.
 */
import type { StorageAdapter, StoredRecord, TableRef, TableSchema } from 'svcbase';
import { type RecordBackend, createStorageAdapter } from 'svcbase/adapter-kit';

/** The key-value store's surface: get, set, delete, and the keys under a prefix. */
export interface TextKv {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<boolean>;
  keys(prefix: string): Promise<string[]>;
}

/** A TextKv in process memory, yielding to the event loop on every call like a network store. */
export function mapTextKv(): TextKv {
  const map = new Map<string, string>();
  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
  return {
    get: async (key) => (await turn(), map.get(key)),
    set: async (key, value) => void (await turn(), map.set(key, value)),
    delete: async (key) => (await turn(), map.delete(key)),
    keys: async (prefix) => (await turn(), [...map.keys()].filter((key) => key.startsWith(prefix))),
  };
}

export function textKvBackend(kv: TextKv): RecordBackend {
  const table = (t: TableRef) => `${t.namespace}|${t.className}`;
  const values = async <T>(prefix: string): Promise<T[]> => {
    const out: T[] = [];
    for (const key of await kv.keys(prefix)) {
      const text = await kv.get(key);
      if (text !== undefined) out.push(JSON.parse(text) as T);
    }
    return out;
  };
  return {
    loadSchema: async (t) => {
      const text = await kv.get(`s|${table(t)}`);
      return text === undefined ? null : (JSON.parse(text) as TableSchema);
    },
    saveSchema: (t, schema) => kv.set(`s|${table(t)}`, JSON.stringify(schema)),
    listTables: async (namespace) => (await kv.keys(`s|${namespace}|`)).map((key) => key.slice(`s|${namespace}|`.length)),
    dropTable: async (t) => {
      for (const key of [...(await kv.keys(`r|${table(t)}|`)), ...(await kv.keys(`l|${table(t)}|`))]) await kv.delete(key);
      await kv.delete(`s|${table(t)}`);
    },
    readRecord: async (t, objectId) => {
      const text = await kv.get(`r|${table(t)}|${objectId}`);
      return text === undefined ? null : (JSON.parse(text) as StoredRecord);
    },
    writeRecord: (t, record) => kv.set(`r|${table(t)}|${record.objectId}`, JSON.stringify(record)),
    deleteRecord: (t, objectId) => kv.delete(`r|${table(t)}|${objectId}`),
    scanRecords: (t) => values<StoredRecord>(`r|${table(t)}|`),
    readRelation: async (t, column, ownerId) => JSON.parse((await kv.get(`l|${table(t)}|${column}|${ownerId}`)) ?? '[]') as string[],
    writeRelation: async (t, column, ownerId, ids) => {
      const key = `l|${table(t)}|${column}|${ownerId}`;
      if (ids.length === 0) await kv.delete(key);
      else await kv.set(key, JSON.stringify(ids));
    },
    scanRelation: async (t, column) => {
      const prefix = `l|${table(t)}|${column}|`;
      const out: Array<readonly [string, string[]]> = [];
      for (const key of await kv.keys(prefix)) out.push([key.slice(prefix.length), JSON.parse((await kv.get(key)) ?? '[]') as string[]]);
      return out;
    },
  };
}

/** The adapter a host passes to `createService({ storage })`. */
export function textKvStorage(kv: TextKv = mapTextKv()): StorageAdapter {
  return createStorageAdapter({ name: 'text-kv', backend: textKvBackend(kv) });
}
