/**
 * For storage adapter authors: the shared semantics an adapter reuses instead of re-deriving them.
 * The reference query evaluator (`runFind`, `runCount`, `runAggregate`) is in `svcbase/query`.
 *
 * @example
 * import { applyOps, mergeColumns } from 'svcbase/adapter-kit';
 * const { schema, added } = mergeColumns('GameScore', current, wanted); // 111 on a type conflict
 * const next = applyOps(record, ops); // every field operation, pure
 * const same = checkIndexSpec('my-adapter', schema, spec); // the index rules every adapter applies
 * return projectRecord(row, projection); // `keys` projections, as the built-in adapters apply them
 */
export { applyOps } from './operators/apply.js';
export { mergeColumns, withoutMissingUnsets } from './operators/column-types.js';
export { assertNewTable } from './storage/schema-rules.js';
export { checkIndexSpec } from './storage/kit/index-spec.js';
export { projectRecord } from './storage/kit/projection.js';
export type { SchemaLimits } from './storage/port.js';
export { createStorageAdapter, type CreateStorageAdapterOptions } from './storage/kit/create-storage-adapter.js';
export type { RecordBackend } from './storage/kit/record-backend.js';
