/** Records REST (`/1/classes`, `/1/batch`) and the class-policy hook other features use. */
export { RECORDS, type RecordsFeature, type RecordsOptions, createRecordsFeature, recordsFeature } from './records-feature.js';
export {
  type ClassPolicy,
  type ClassPolicyContext,
  type ClassWriteContext,
  ClassPolicyRegistry,
  OPEN_POLICY,
  SYSTEM_POLICY,
  USER_TABLE,
} from './class-policy.js';
export { type BatchItem, type BatchOperation, type BatchRequest, parseBatch, runBatch } from './batch.js';
export { isPlausibleObjectId, newObjectId } from '../core/object-id.js';
export { type CreateResult, type RecordListOptions, type RecordReadOptions, type RecordWrites, type RecordsService, createRecordsService } from './records-service.js';
export type { CreatedRecord } from './record-ops.js';
export type { OwnCreateResult } from './class-policy.js';
// What other features build on: writes through the pipeline as a caller, the wire write parser, the
// routes of a system table, batches and BQL for cloud functions, and the reserved table names.
export { actingAs } from './pipeline/write-pipeline.js';
export { parseWriteWithAcl } from './record-access.js';
export { tableRoutes } from './records-routes.js';
export { CLOUD_CODE_TABLE, INTERNAL_TABLES } from './internal-tables.js';
export { bqlValues, executeBql } from './bql.js';
