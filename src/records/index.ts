/** Records REST (`/1/classes`, `/1/batch`) and the class-policy hook other features use. */
export { type RecordsFeature, type RecordsOptions, createRecordsFeature } from './records-feature.js';
export {
  type ClassPolicy,
  type ClassPolicyContext,
  type ClassWriteContext,
  ClassPolicyRegistry,
  OPEN_POLICY,
  SYSTEM_POLICY,
  USER_TABLE,
} from './class-policy.js';
export { type BatchItem, type BatchOperation, type BatchRequest, parseBatch } from './batch.js';
export { isPlausibleObjectId, newObjectId } from './object-id.js';
export { type CreateResult, type RecordReadOptions, type RecordWrites, type RecordsService, createRecordsService } from './records-service.js';
export type { CreatedRecord } from './record-ops.js';
export type { OwnCreateResult } from './class-policy.js';
