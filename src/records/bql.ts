import type { Caller } from '../app/caller.js';
import { svcError } from '../core/errors.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { parseBql } from '../query/bql/parse-bql.js';
import type { RecordsService } from './records-service.js';
import { merged } from '../core/copy.js';

/**
 * Runs a BQL statement as `caller`: parsed into the wire parameters of a list and run by the records
 * list service, so it is validated and access-checked exactly as `GET /1/classes/:table`. Answers
 * the list's reply (`results`, `count` for `count(*)`) with the table's `className`.
 */
export async function executeBql(records: RecordsService, caller: Caller, text: string, values: readonly Json[] = []): Promise<JsonObject> {
  const query = parseBql(text, values);
  const params = new URLSearchParams();
  if (Object.keys(query.where).length > 0) params.set('where', JSON.stringify(query.where));
  if (query.keys.length > 0) params.set('keys', query.keys.join(','));
  if (query.order.length > 0) params.set('order', query.order.join(','));
  if (query.countOnly) {
    params.set('count', '1');
    params.set('limit', '0');
  } else {
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.skip !== undefined) params.set('skip', String(query.skip));
    if (query.count) params.set('count', '1');
  }
  return merged(await records.list(caller, query.className, params), { className: query.className });
}

/** `values` as the wire sends it: a JSON array text (also inside `oBql.exec`), or an array. */
export function bqlValues(raw: Json | string | null | undefined): Json[] {
  if (raw === null || raw === undefined || raw === '') return [];
  let value: unknown = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw svcError('invalidBql', 'values must be a JSON array');
    }
  }
  if (!Array.isArray(value)) throw svcError('invalidBql', 'values must be a JSON array');
  return value as Json[];
}
