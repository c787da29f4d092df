import type { Awaitable, StorageAdapter } from '../port.js';

/** The data operations of the port: what an adapter's core implements (a class or an object). */
export type StorageOperations = Omit<StorageAdapter, 'name' | 'capabilities' | 'transaction' | 'close'>;

/** How each operation runs: directly, or behind a gate that holds callers while a transaction is open. */
export type OperationRunner = <T>(op: () => Awaitable<T>) => Awaitable<T>;

export interface AdapterShellParts {
  readonly name: string;
  readonly capabilities: StorageAdapter['capabilities'];
  /** Implements every data operation (its optional ones are passed on when present). */
  readonly operations: StorageOperations;
  /** Reads that run elsewhere than `operations` (the SQLite adapter's reader workers). */
  readonly reads?: Pick<StorageOperations, 'find' | 'count' | 'aggregate'>;
  /** Default: every operation runs directly. */
  readonly run?: OperationRunner;
  readonly transaction: StorageAdapter['transaction'];
  readonly close: StorageAdapter['close'];
}

const direct: OperationRunner = (op) => op();

/**
 * The port's object around a core: every operation forwarded to `operations` through `run`. Each
 * built-in adapter makes two, one for callers (behind its gate) and one for the `tx` of a
 * transaction (direct), so the list of port methods lives here only.
 */
export function adapterShell(parts: AdapterShellParts): StorageAdapter {
  const { operations: core, run = direct } = parts;
  const reads = parts.reads ?? core;
  const { updateWithoutReturning, updateReturningBefore, listTables, dropColumn, dropIndex, dropTable } = core;
  return {
    name: parts.name,
    capabilities: parts.capabilities,
    getSchema: (ref) => run(() => core.getSchema(ref)),
    ensureColumns: (ref, columns, limits) => run(() => core.ensureColumns(ref, columns, limits)),
    createIndex: (ref, index) => run(() => core.createIndex(ref, index)),
    insert: (ref, record) => run(() => core.insert(ref, record)),
    get: (ref, id, projection) => run(() => core.get(ref, id, projection)),
    update: (ref, id, ops, updatedAt) => run(() => core.update(ref, id, ops, updatedAt)),
    delete: (ref, id) => run(() => core.delete(ref, id)),
    find: (ref, plan, options) => run(() => reads.find(ref, plan, options)),
    count: (ref, where, options) => run(() => reads.count(ref, where, options)),
    aggregate: (ref, plan, options) => run(() => reads.aggregate(ref, plan, options)),
    dropNamespace: (namespace) => run(() => core.dropNamespace(namespace)),
    ...(updateWithoutReturning && { updateWithoutReturning: (ref, id, ops, updatedAt) => run(() => updateWithoutReturning.call(core, ref, id, ops, updatedAt)) }),
    ...(updateReturningBefore && { updateReturningBefore: (ref, id, ops, updatedAt) => run(() => updateReturningBefore.call(core, ref, id, ops, updatedAt)) }),
    ...(listTables && { listTables: (namespace) => run(() => listTables.call(core, namespace)) }),
    ...(dropColumn && { dropColumn: (ref, column) => run(() => dropColumn.call(core, ref, column)) }),
    ...(dropIndex && { dropIndex: (ref, index) => run(() => dropIndex.call(core, ref, index)) }),
    ...(dropTable && { dropTable: (ref) => run(() => dropTable.call(core, ref)) }),
    transaction: parts.transaction,
    close: parts.close,
  };
}
