/** Records REST (`/1/classes`, `/1/batch`) and the class-policy hook other features use. */
export { type RecordsFeature, type RecordsOptions, createRecordsFeature } from './records-feature.js';
export {
  type ClassPolicy,
  type ClassListContext,
  type ClassPolicyContext,
  type ClassWriteContext,
  ClassPolicyRegistry,
  OPEN_POLICY,
  SYSTEM_POLICY,
  USER_TABLE,
} from './class-policy.js';
export { type BatchItem, type BatchRequest, parseBatch } from './batch.js';
export { isPlausibleObjectId, newObjectId } from './object-id.js';
