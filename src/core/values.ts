import { isoMs, isoOfMs } from './time.js';

/**
 * The internal value model. Wire JSON is decoded into these once at the edge; engines and adapters
 * only ever see them. Typed values stay tagged plain objects so arrays and objects holding them
 * round-trip through JSON storage unchanged.
 *
 * - Date: `iso` is always canonical UTC with milliseconds (`2026-01-02T03:04:05.678Z`), so string
 *   order is time order.
 * - Pointer/GeoPoint/File: the wire shapes, validated.
 */
export interface DateValue {
  readonly __type: 'Date';
  readonly iso: string;
}
export interface PointerValue {
  readonly __type: 'Pointer';
  readonly className: string;
  readonly objectId: string;
}
export interface GeoPointValue {
  readonly __type: 'GeoPoint';
  readonly latitude: number;
  readonly longitude: number;
}
export interface FileValue {
  readonly __type: 'File';
  readonly filename: string;
  readonly url: string;
  readonly group?: string;
  readonly cdn?: string;
}
export type TypedValue = DateValue | PointerValue | GeoPointValue | FileValue;
export interface ObjectValue {
  readonly [key: string]: Value;
}
export type Value = null | boolean | number | string | TypedValue | readonly Value[] | ObjectValue;

/** A stored record: `objectId` plus `createdAt`/`updatedAt` as Date values plus the columns. */
export type StoredRecord = ObjectValue & {
  readonly objectId: string;
  readonly createdAt: DateValue;
  readonly updatedAt: DateValue;
};

/** Column types of a table schema, named as the hosted service's console names them. */
export type ColumnType =
  | 'String'
  | 'Number'
  | 'Boolean'
  | 'Date'
  | 'Pointer'
  | 'GeoPoint'
  | 'File'
  | 'Array'
  | 'Object'
  | 'Relation';

export function isDate(v: Value | undefined): v is DateValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as TypedValue).__type === 'Date';
}
export function isPointer(v: Value | undefined): v is PointerValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as TypedValue).__type === 'Pointer';
}
export function isGeoPoint(v: Value | undefined): v is GeoPointValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as TypedValue).__type === 'GeoPoint';
}
export function isFile(v: Value | undefined): v is FileValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as TypedValue).__type === 'File';
}
export function isPlainObject(v: Value | undefined): v is ObjectValue {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { __type?: unknown }).__type === undefined;
}

/** The column type a value implies (null implies none). */
export function typeOfValue(v: Value): ColumnType | null {
  if (v === null) return null;
  switch (typeof v) {
    case 'string':
      return 'String';
    case 'number':
      return 'Number';
    case 'boolean':
      return 'Boolean';
  }
  if (Array.isArray(v)) return 'Array';
  const tag = (v as { __type?: string }).__type;
  if (tag === 'Date' || tag === 'Pointer' || tag === 'GeoPoint' || tag === 'File') return tag;
  return 'Object';
}

export function dateValue(ms: number): DateValue {
  return { __type: 'Date', iso: isoOfMs(ms) };
}

export function dateMs(v: DateValue): number {
  return isoMs(v.iso);
}

/**
 * Deep equality with the query language's meaning: typed values compare by identity (Date by
 * instant, Pointer by class and id, GeoPoint by coordinates, File by url), objects by keys.
 */
export function valuesEqual(a: Value | undefined, b: Value | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!valuesEqual(a[i], b[i])) return false;
    return true;
  }
  const ta = (a as { __type?: string }).__type;
  const tb = (b as { __type?: string }).__type;
  if (ta !== tb) return false;
  if (ta === 'Date') return (a as DateValue).iso === (b as DateValue).iso;
  if (ta === 'Pointer') {
    const pa = a as PointerValue, pb = b as PointerValue;
    return pa.className === pb.className && pa.objectId === pb.objectId;
  }
  if (ta === 'GeoPoint') {
    const ga = a as GeoPointValue, gb = b as GeoPointValue;
    return ga.latitude === gb.latitude && ga.longitude === gb.longitude;
  }
  if (ta === 'File') return (a as FileValue).url === (b as FileValue).url;
  const oa = a as ObjectValue, ob = b as ObjectValue;
  const ka = Object.keys(oa), kb = Object.keys(ob);
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (!Object.hasOwn(ob, k) || !valuesEqual(oa[k], ob[k])) return false;
  return true;
}
