import type { StorageAdapter } from '../../../src/storage/port.js';
import type { Fixture } from './fixture.js';

/** A read-only StorageAdapter over a fixture, answering from memory or from SQLite. */
export function fixtureStorage(fixture: Fixture, engine: 'memory' | 'sqlite'): StorageAdapter {
  const no = (): never => {
    throw new Error('read-only fixture storage');
  };
  return {
    name: `fixture-${engine}`,
    capabilities: { transactions: false },
    getSchema: (t) => fixture.schema(t.className),
    find: (t, plan) => (engine === 'memory' ? fixture.memoryFind(t.className, plan) : fixture.sqlFind(t.className, plan)),
    count: (t, where) => (engine === 'memory' ? fixture.memoryCount(t.className, where) : fixture.sqlCount(t.className, where)),
    aggregate: (t, plan) => (engine === 'memory' ? fixture.memoryAggregate(t.className, plan) : fixture.sqlAggregate(t.className, plan)),
    ensureColumns: no,
    createIndex: no,
    insert: no,
    get: no,
    update: no,
    delete: no,
    transaction: no,
    dropNamespace: () => undefined,
    close: () => undefined,
  };
}
