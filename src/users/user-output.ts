import type { Application } from '../app/application.js';
import type { StoredRecord } from '../core/values.js';
import { type Json, encodeRecord } from '../core/wire-values.js';

/** A user record without its password hash: what every reply and hook may show. */
export function withoutPassword(record: StoredRecord): StoredRecord {
  if (!Object.hasOwn(record, 'password')) return record;
  const { password: _hidden, ...rest } = record;
  return rest as StoredRecord;
}

/**
 * A user for the wire: no password (not even hashed), dates in the application's form, and the
 * session token only when given (login, sign-up and `users/me` replies).
 */
export function userJson(app: Application, record: StoredRecord, sessionToken?: string): { [key: string]: Json } {
  const out = encodeRecord(withoutPassword(record), app.settings.timeZone);
  if (sessionToken !== undefined) out.sessionToken = sessionToken;
  return out;
}
