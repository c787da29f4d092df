import type { StoredRecord, Value } from '../../core/values.js';
import type { TableSchema } from '../plan.js';

/**
 * What the evaluator needs from its surroundings: the other tables of the same namespace (inner
 * queries), Relation membership and schemas. The memory adapter implements it over its maps.
 */
export interface EvalEnv {
  /** Every record of `className` in the same namespace (empty when the table does not exist). */
  records(className: string): Iterable<StoredRecord>;
  /** objectIds related to record `objectId` of `className` through its Relation column `column`. */
  relationMembers(className: string, objectId: string, column: string): ReadonlySet<string>;
  schema(className: string): TableSchema | null;
  /** The table being queried. */
  readonly className: string;
}

/** The table a predicate is compiled for (the queried one, or an inner query's). */
export interface EvalContext {
  readonly env: EvalEnv;
  readonly className: string;
  readonly schema: TableSchema | null;
}

/** A compiled where node. */
export type Predicate = (record: StoredRecord) => boolean;
/**
 * Selects the records of an array that a where matches, in array order: writes their positions into
 * `into` from index 0 and stops after `limit` of them (`into` holds at least that many); returns
 * how many it wrote.
 */
export type Selector = (records: readonly StoredRecord[], into: Int32Array, limit: number) => number;

/** A compiled where: the test of one record, and a loop selecting the matches of an array. */
export interface Filter {
  readonly test: Predicate;
  readonly select: Selector;
}

/** A compiled test of one field value (undefined = missing). */
export type ValueTest = (value: Value | undefined) => boolean;

export function contextFor(env: EvalEnv, className: string): EvalContext {
  return { env, className, schema: env.schema(className) };
}
