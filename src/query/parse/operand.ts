import { svcError } from '../../core/errors.js';
import { parseDateInput, toIso } from '../../core/time.js';
import type { Value } from '../../core/values.js';
import { decodeValue, type Json } from '../../core/wire-values.js';
import { MAX_LIST_VALUES, queryError, type WhereScope } from './context.js';
import type { FieldInfo } from './field.js';

/**
 * Decodes a comparison operand. Typed values arrive in their wire form (`{"__type":"Date",...}`).
 * On `createdAt`/`updatedAt` a plain string is read as a date in the application's time zone too,
 * because the official SDK sends `updatedAt` bounds that way; on other Date columns a string stays
 * a string and, being of another type, never matches.
 */
export function decodeOperand(json: Json, info: FieldInfo, scope: WhereScope): Value {
  if (info.system && info.type === 'Date' && typeof json === 'string') {
    const ms = parseDateInput(json, scope.ctx.settings.timeZone);
    if (ms === null) throw svcError('invalidDate', `${info.key}: ${json}`);
    return { __type: 'Date', iso: toIso(ms) };
  }
  return decodeValue(json, info.key, scope.ctx.settings.timeZone);
}

/** An orderable operand of `$lt`/`$lte`/`$gt`/`$gte`: a number, a string or a Date. */
export function decodeRangeOperand(json: Json, info: FieldInfo, op: string, scope: WhereScope): Value {
  const value = decodeOperand(json, info, scope);
  const ok =
    typeof value === 'number' ||
    typeof value === 'string' ||
    (typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { __type?: unknown }).__type === 'Date');
  if (!ok) throw queryError(`key '${info.key}': ${op} needs a number, a string or a Date.`);
  return value;
}

/** The array operand of `$in`, `$nin`, `$all`. */
export function decodeListOperand(json: Json, info: FieldInfo, op: string, scope: WhereScope): Value[] {
  if (!Array.isArray(json)) throw queryError(`key '${info.key}': ${op} needs an array.`);
  if (json.length > MAX_LIST_VALUES) throw queryError(`key '${info.key}': ${op} holds more than ${MAX_LIST_VALUES} values.`);
  return json.map((item) => decodeOperand(item, info, scope));
}
