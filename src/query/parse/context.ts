import { svcError, type SvcError } from '../../core/errors.js';
import type { ColumnType } from '../../core/values.js';
import type { TableSchema } from '../plan.js';
import type { QueryLimits } from '../query-limits.js';
import { merged } from '../../core/copy.js';

/** The application settings the query parser reads. `Application['settings']` satisfies it. */
export interface QuerySettings {
  readonly timeZone: string;
  readonly features: { readonly regex: boolean };
  readonly query: Readonly<QueryLimits>;
}

/**
 * What parsing a list query needs: the queried table, a synchronous schema lookup for it and for
 * every table its inner queries name (prefetch them with `referencedClasses`), and the settings.
 * A table that does not exist yet has schema `null`: every column is then unknown (always missing).
 */
export interface ParseContext {
  readonly className: string;
  schema(className: string): TableSchema | null;
  readonly settings: QuerySettings;
  /**
   * Columns no query may name (e.g. `_User.password`): a where key naming one is refused (102) as
   * soon as it is read. The list guards check the whole plan again (order, keys, include, ...).
   */
  isSecretColumn?(className: string, column: string): boolean;
}

/** Parser state for one where object: the table its keys name and how deep we are. */
export interface WhereScope {
  readonly ctx: ParseContext;
  readonly className: string;
  readonly schema: TableSchema | null;
  /** Nesting of $or/$and/inner queries. */
  readonly depth: number;
  /** Shared counts of produced nodes and inner queries, bounded per query. */
  readonly budget: { nodes: number; innerQueries: number };
  /** `having` scopes allow only comparisons, membership, existence, regex and $or/$and. */
  readonly having: boolean;
}

/** Deepest nesting of $or/$and and inner queries. */
export const MAX_WHERE_DEPTH = 8;
/** Most nodes one query may produce. */
export const MAX_WHERE_NODES = 1000;
/**
 * Most inner queries ($inQuery, $notInQuery, $select, $dontSelect, $relatedTo) one query may hold.
 * Each one reads another table; over the bound the query is refused (11100), never truncated.
 */
export const MAX_INNER_QUERIES = 16;
/** Most values in one $in, $nin or $all list. */
export const MAX_LIST_VALUES = 1000;

/** The refusal of a query naming a secret column (102). */
export function secretColumnError(column: string): SvcError {
  return queryError(`invalid key '${column}' for find: this column cannot be queried.`);
}

/** The query error: SvcError 102 `invalidQueryKey` with a message naming the offending key. */
export function queryError(message: string): SvcError {
  return svcError('invalidQueryKey', message);
}

/** Types of the fields every record has. */
export const SYSTEM_FIELDS: Readonly<Record<string, ColumnType>> = {
  objectId: 'String',
  createdAt: 'Date',
  updatedAt: 'Date',
};

export function childScope(scope: WhereScope, className: string): WhereScope {
  if (scope.depth + 1 > MAX_WHERE_DEPTH) throw queryError(`where nested deeper than ${MAX_WHERE_DEPTH} levels.`);
  return merged(scope, { className, schema: scope.ctx.schema(className), depth: scope.depth + 1 });
}

export function countNode(scope: WhereScope): void {
  if (++scope.budget.nodes > MAX_WHERE_NODES) throw queryError(`where has more than ${MAX_WHERE_NODES} conditions.`);
}

/** Counts one inner query against the query's budget: 11100 past {@link MAX_INNER_QUERIES}. */
export function countInnerQuery(scope: WhereScope): void {
  if (++scope.budget.innerQueries > MAX_INNER_QUERIES) throw svcError('tooManyInnerQueries', MAX_INNER_QUERIES);
}
