import { svcError } from './errors.js';
import { FORBIDDEN_KEYS, isValidTableName } from './names.js';
import { formatDateValue, formatIsoDateTime, parseDateInput } from './time.js';
import type { DateValue, GeoPointValue, ObjectValue, PointerValue, StoredRecord, Value } from './values.js';

/** JSON as it arrives on the wire (already parsed, forbidden keys already refused). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const SUBKEY = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,127}$/;

/**
 * Decodes a wire value (a column value or an element inside one) into the internal model.
 * `key` names the value in error messages. Field operations (`__op`) are not values: callers handle
 * them first and this refuses them.
 */
export function decodeValue(json: Json, key: string, timeZone: string): Value {
  if (json === null || typeof json !== 'object') {
    if (typeof json === 'number' && !Number.isFinite(json)) throw svcError('typeMismatch', key, 'Number', 'non-finite');
    return json;
  }
  if (Array.isArray(json)) return json.map((item, i) => decodeValue(item, `${key}.${i}`, timeZone));
  if ('__op' in json) throw svcError('invalidOp', `${key}: a field operation is not allowed here`);
  const tag = json.__type;
  if (tag !== undefined) return decodeTyped(json, key, timeZone);
  const out: Record<string, Value> = {};
  for (const [k, v] of Object.entries(json)) {
    if (FORBIDDEN_KEYS.has(k)) throw svcError('forbiddenKey', k);
    if (!SUBKEY.test(k)) throw svcError('invalidFieldName', `${key}.${k}`);
    out[k] = decodeValue(v, `${key}.${k}`, timeZone);
  }
  return out;
}

function decodeTyped(json: { [key: string]: Json }, key: string, timeZone: string): Value {
  switch (json.__type) {
    case 'Date':
      return decodeDate(json, key, timeZone);
    case 'Pointer':
      return decodePointer(json, key);
    case 'GeoPoint':
      return decodeGeoPoint(json, key);
    case 'File': {
      const { filename, url } = json;
      if (typeof filename !== 'string' || typeof url !== 'string') {
        throw svcError('invalidParameter', `${key}: a File needs string filename and url`);
      }
      const file: { __type: 'File'; filename: string; url: string; group?: string; cdn?: string } = {
        __type: 'File',
        filename,
        url,
      };
      if (typeof json.group === 'string') file.group = json.group;
      if (typeof json.cdn === 'string') file.cdn = json.cdn;
      return file;
    }
    case 'Object':
      // An expanded pointer sent back by a client: keep only the reference.
      return decodePointer({ __type: 'Pointer', className: json.className ?? null, objectId: json.objectId ?? null }, key);
    default:
      throw svcError('invalidParameter', `${key}: unknown __type '${String(json.__type)}'`);
  }
}

export function decodeDate(json: { [key: string]: Json }, key: string, timeZone: string): DateValue {
  const iso = json.iso;
  if (typeof iso !== 'string') throw svcError('invalidDate', `${key}: a Date needs an iso string`);
  const ms = parseDateInput(iso, timeZone);
  if (ms === null) throw svcError('invalidDate', `${key}: ${iso}`);
  return { __type: 'Date', iso: new Date(ms).toISOString() };
}

export function decodePointer(json: { [key: string]: Json }, key: string): PointerValue {
  const { className, objectId } = json;
  if (typeof className !== 'string' || !isValidTableName(className) || typeof objectId !== 'string' || objectId === '' || objectId.length > 64) {
    throw svcError('invalidPointer', key);
  }
  return { __type: 'Pointer', className, objectId };
}

export function decodeGeoPoint(json: { [key: string]: Json }, key: string): GeoPointValue {
  const { latitude, longitude } = json;
  if (typeof latitude !== 'number' || typeof longitude !== 'number' || !Number.isFinite(latitude) || !Number.isFinite(longitude)) {
    throw svcError('invalidQueryKey', `${key}: invalid geopoint object.`);
  }
  if (latitude < -90 || latitude > 90) throw svcError('geoOutOfRange', `Latitude must be in [-90, 90]: ${latitude}.`);
  if (longitude < -180 || longitude > 180) throw svcError('geoOutOfRange', `Longitude must be in [-180, 180]: ${longitude}.`);
  return { __type: 'GeoPoint', latitude, longitude };
}

/**
 * Encodes an internal value for the wire: Date values become `{__type:"Date", iso:"YYYY-MM-DD HH:mm:ss"}`
 * in the application's time zone, `.SSS` appended when the value has milliseconds; everything else is already wire-shaped. Arrays and objects
 * without a Date inside are returned as they are (not copied): encoded values are only read.
 */
export function encodeValue(value: Value, timeZone: string): Json {
  if (value === null || typeof value !== 'object') return value;
  return holdsDate(value) ? encodeNested(value, timeZone) : (value as unknown as Json);
}

/** Whether an array or object holds a Date value at any depth (other typed values hold none). */
function holdsDate(value: object): boolean {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v !== null && typeof v === 'object' && holdsDate(v)) return true;
    }
    return false;
  }
  const tag = (value as { __type?: unknown }).__type;
  if (tag !== undefined) return tag === 'Date';
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const v: unknown = (value as Record<string, unknown>)[k];
    if (v !== null && typeof v === 'object' && holdsDate(v)) return true;
  }
  return false;
}

function encodeNested(value: object, timeZone: string): Json {
  if (Array.isArray(value)) return value.map((v: Value) => encodeValue(v, timeZone));
  const tag = (value as { __type?: string }).__type;
  if (tag === 'Date') return { __type: 'Date', iso: formatDateValue((value as DateValue).iso, timeZone) };
  if (tag !== undefined) return value as unknown as Json;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value as ObjectValue)) out[k] = encodeValue(v, timeZone);
  return out;
}

/** Encodes a stored record: `createdAt`/`updatedAt` as plain `YYYY-MM-DD HH:mm:ss` strings. */
export function encodeRecord(record: ObjectValue, timeZone: string): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const v = record[k] as Value;
    if (v === null || typeof v !== 'object') out[k] = v;
    else if ((k === 'createdAt' || k === 'updatedAt') && !Array.isArray(v)) out[k] = formatIsoDateTime((v as DateValue).iso, timeZone);
    else out[k] = encodeValue(v, timeZone);
  }
  return out;
}

export type { StoredRecord };

/** A JSON object: request bodies, write inputs, encoded records. The one `JsonObject` of the codebase. */
export type JsonObject = { [key: string]: Json };
