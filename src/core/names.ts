import { svcError } from './errors.js';

/** Table names: a letter first, then letters, digits, `_`; system tables (`_User`) start with `_`. */
const TABLE_NAME = /^_?[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Column names: a letter first, then letters, digits, `_`. */
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/** Fields the service sets itself; clients may not write them. `ACL` is reserved too. */
export const RESERVED_FIELDS: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/** Keys that would reach Object.prototype; refused anywhere in a body. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export function isValidTableName(name: string): boolean {
  return TABLE_NAME.test(name);
}

export function isValidFieldName(name: string): boolean {
  return FIELD_NAME.test(name);
}

/** Throws 103 unless `name` is a valid table name. */
export function assertTableName(name: string): void {
  if (!TABLE_NAME.test(name)) throw svcError('invalidClassName', name);
}

/** Throws 105 unless `name` is a valid, writable column name. */
export function assertWritableField(name: string): void {
  if (RESERVED_FIELDS.has(name)) throw svcError('reservedField', name);
  if (!FIELD_NAME.test(name)) throw svcError('invalidFieldName', name);
}
