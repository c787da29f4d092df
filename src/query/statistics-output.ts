import { formatIsoDateTime } from '../core/time.js';
import type { DateValue, Value } from '../core/values.js';
import { encodeValue, type Json } from '../core/wire-values.js';
import type { AggregatePlan } from './plan.js';

const SYSTEM_TIMES = new Set(['createdAt', 'updatedAt']);

/**
 * Encodes one statistics row. `max`/`min` over `createdAt`/`updatedAt` answer the column's own form
 * (`YYYY-MM-DD HH:mm:ss`), not a typed Date: `_maxCreatedAt` reads like `createdAt`.
 */
export function encodeStatisticsRow(row: Readonly<Record<string, Value>>, plan: AggregatePlan, timeZone: string): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(row)) out[k] = encodeValue(v, timeZone);
  for (const term of plan.aggregates) {
    const v = row[term.alias];
    if (!SYSTEM_TIMES.has(term.column) || v === null || typeof v !== 'object' || Array.isArray(v)) continue;
    if ((v as { __type?: unknown }).__type === 'Date') out[term.alias] = formatIsoDateTime((v as DateValue).iso, timeZone);
  }
  return out;
}
