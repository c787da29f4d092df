import type { StoredRecord, Value } from '../../core/values.js';
import type { FieldRef } from '../plan.js';
import type { ValueTest } from './context.js';

export type Getter = (record: StoredRecord) => Value | undefined;

/**
 * Reads a field: a top-level column, or a path through nested objects (typed values included, as
 * in their stored JSON). Only own properties are read; arrays are not traversed by paths.
 */
export function compileGetter(field: FieldRef): Getter {
  const { column, path } = field;
  if (path.length === 0) {
    // A column that no prototype of a plain object has is read as is; a value is never a function.
    if (!inheritsName(column)) return (r) => (r as Readonly<Record<string, Value>>)[column];
    return (r) => {
      const v = (r as Readonly<Record<string, Value>>)[column];
      return typeof v === 'function' ? undefined : v;
    };
  }
  return (r) => {
    let cur: unknown = (r as Readonly<Record<string, Value>>)[column];
    for (let i = 0; i < path.length; i++) {
      const seg = path[i]!;
      if (typeof cur !== 'object' || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, seg)) return undefined;
      cur = (cur as Record<string, unknown>)[seg];
    }
    return cur as Value | undefined;
  };
}

/**
 * Whether a plain object inherits a property `name` (`toString`, `constructor`, `__proto__`, ...):
 * reading such a column directly could see the inherited function instead of a missing value. Other
 * names read from a record are its own values or undefined (checked when a predicate is compiled).
 */
export function inheritsName(name: string): boolean {
  return name in Object.prototype;
}

/**
 * The array rule: a test matches a field when it matches the value itself or, when the value is an
 * array, any of its elements (one level).
 */
export function anyValue(test: ValueTest): ValueTest {
  return (v) => {
    if (test(v)) return true;
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) if (test(v[i])) return true;
    return false;
  };
}
