// The schema naming and size rules live in src/operators (mergeColumns applies them); re-exported here for the adapters.
export { assertNewColumns, assertNewTable } from '../operators/schema-rules.js';
