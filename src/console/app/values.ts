import type { Json, JsonObject } from './api.js';

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** How a cell shows a value: text for scalars, a short form for typed values, JSON for the rest. */
export function formatValue(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isObject(value)) {
    switch (value['__type']) {
      case 'Pointer':
        return `${String(value['className'])} ${String(value['objectId'])}`;
      case 'Date':
        return String(value['iso']);
      case 'File':
        return String(value['filename']);
      case 'Relation':
        return `relation → ${String(value['className'])}`;
      case 'GeoPoint':
        return `${String(value['latitude'])}, ${String(value['longitude'])}`;
    }
  }
  return JSON.stringify(value);
}

/** What the text editor starts with: the value as it would be typed back. */
export function editText(value: Json | undefined, type: string | undefined): string {
  if (value === undefined || value === null) return '';
  if (type === 'String' && typeof value === 'string') return value;
  if (type === 'Date' && isObject(value) && value['__type'] === 'Date') return String(value['iso']);
  if ((type === 'Object' || type === 'Array') && typeof value === 'object') return JSON.stringify(value, null, 2);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A Date value's `YYYY-MM-DD HH:mm:ss[.SSS]` (application time) as a datetime-local input's value. */
export function dateInput(value: Json | undefined): string {
  if (!isObject(value) || value['__type'] !== 'Date') return '';
  return String(value['iso']).replace(' ', 'T').slice(0, 19);
}

/** A datetime-local value as the Date the service reads in the application's time zone. */
export function dateFromInput(text: string): JsonObject | { __op: 'Delete' } {
  if (text.trim() === '') return { __op: 'Delete' };
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})?/.exec(text);
  if (!match) throw new Error(`'${text}' is not a date`);
  return { __type: 'Date', iso: `${match[1]} ${match[2]}${match[3] ?? ':00'}` };
}

/**
 * Reads what the operator typed as the column's type: a Number must be a number, a Boolean
 * `true`/`false`, a Date a date, a String is taken as typed, anything else is JSON. Empty
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
      if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(trimmed)) return { __type: 'Date', iso: trimmed.replace('T', ' ') };
      const ms = Date.parse(trimmed);
      if (Number.isNaN(ms)) throw new Error(`'${trimmed}' is not a date`);
      return { __type: 'Date', iso: new Date(ms).toISOString() };
    }
    case 'Object':
    case 'Array': {
      let parsed: Json;
      try {
        parsed = JSON.parse(trimmed) as Json;
      } catch (error) {
        throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (type === 'Array' && !Array.isArray(parsed)) throw new Error('an Array is written as [ ... ]');
      if (type === 'Object' && !isObject(parsed)) throw new Error('an Object is written as { ... }');
      return parsed;
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

/** A GeoPoint from its two fields; both empty removes it. */
export function geoPoint(latitude: string, longitude: string): JsonObject | { __op: 'Delete' } {
  if (latitude.trim() === '' && longitude.trim() === '') return { __op: 'Delete' };
  const lat = Number(latitude);
  const lng = Number(longitude);
  if (latitude.trim() === '' || !Number.isFinite(lat) || lat < -90 || lat > 90) throw new Error('latitude is a number from -90 to 90');
  if (longitude.trim() === '' || !Number.isFinite(lng) || lng < -180 || lng > 180) throw new Error('longitude is a number from -180 to 180');
  return { __type: 'GeoPoint', latitude: lat, longitude: lng };
}

/** Whether a File value looks like an image the page may show (by its name). */
export function isImage(value: Json | undefined): boolean {
  return isObject(value) && value['__type'] === 'File' && /\.(png|jpe?g|gif|webp|svg)$/i.test(String(value['filename'] ?? value['url'] ?? ''));
}

export const COLUMN_TYPES = ['String', 'Number', 'Boolean', 'Date', 'Object', 'Array', 'GeoPoint', 'File', 'Pointer', 'Relation'] as const;

/** A CSV cell as the column's type (export and import agree: typed values as JSON, Dates as their text). */
export function csvCell(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : isObject(value) && value['__type'] === 'Date' ? String(value['iso']) : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Rows of a CSV text (RFC 4180: quoted fields, doubled quotes, CRLF or LF). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new Error('the CSV ends inside a quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.length > 1 || r[0] !== '');
}

/** A CSV row (after its header) as a record body, each cell read as its column's type; empty cells left out. */
export function csvRecord(header: readonly string[], cells: readonly string[], typeOf: (column: string) => string | undefined): JsonObject {
  const body: JsonObject = {};
  header.forEach((column, i) => {
    const cell = cells[i] ?? '';
    if (cell === '' || column === 'objectId' || column === 'createdAt' || column === 'updatedAt') return;
    try {
      const value = parseTyped(cell, typeOf(column) ?? 'String');
      body[column] = value as Json;
    } catch (error) {
      throw new Error(`column ${column}: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return body;
}
