import type { Json } from './api.js';

/** How a cell shows a value: text for scalars, JSON for the rest. */
export function formatValue(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (!Array.isArray(value) && value['__type'] === 'Pointer') return `→ ${String(value['className'])} ${String(value['objectId'])}`;
  if (!Array.isArray(value) && value['__type'] === 'Date') return String(value['iso']);
  if (!Array.isArray(value) && value['__type'] === 'File') return String(value['filename']);
  if (!Array.isArray(value) && value['__type'] === 'Relation') return `relation → ${String(value['className'])}`;
  return JSON.stringify(value);
}

/** What an editor starts with: the value as it would be typed back. */
export function editText(value: Json | undefined, type: string | undefined): string {
  if (value === undefined || value === null) return '';
  if (type === 'String' && typeof value === 'string') return value;
  if (type === 'Date' && typeof value === 'object' && !Array.isArray(value) && value['__type'] === 'Date') return String(value['iso']);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Reads what the operator typed as the column's type: a Number must be a number, a Boolean
 * `true`/`false`, a Date an ISO date, a String is taken as typed, anything else is JSON. Empty
 * removes the value. Throws a message for the form.
 */
export function parseTyped(text: string, type: string | undefined): Json | { __op: 'Delete' } {
  const trimmed = text.trim();
  if (trimmed === '') return { __op: 'Delete' };
  switch (type) {
    case 'String':
      return text;
    case 'Number': {
      const number = Number(trimmed);
      if (!Number.isFinite(number)) throw new Error(`'${trimmed}' is not a number`);
      return number;
    }
    case 'Boolean':
      if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
      throw new Error('a Boolean is true or false');
    case 'Date': {
      const ms = Date.parse(trimmed);
      if (Number.isNaN(ms)) throw new Error(`'${trimmed}' is not a date`);
      return { __type: 'Date', iso: new Date(ms).toISOString() };
    }
    default:
      try {
        return JSON.parse(trimmed) as Json;
      } catch {
        if (type === undefined) return text;
        throw new Error(`a ${type} is written as JSON`);
      }
  }
}

export const COLUMN_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'GeoPoint', 'File', 'Pointer', 'Relation'] as const;
