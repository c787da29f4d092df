/**
 * Field operations (`__op`): parse a write body into validated {@link FieldOp}s and apply them.
 * The parser runs once at the edge; `applyOps` is the one semantics every adapter shares.
 */
export { applyOps, needsReadModifyWrite } from './apply.js';
export { assertColumnType, describeColumn, impliedColumn, mergeColumns, sameColumnType } from './column-types.js';
export { type ParsedOp, WIRE_OPS, type WireOp, parseFieldOp } from './parse-op.js';
export { type WriteOptions, type WritePlan, parseWrite } from './parse-write.js';
export { MAX_PATH_DEPTH, isIndexSegment, splitDotKey } from './paths.js';
export type { FieldOp } from './field-op.js';
