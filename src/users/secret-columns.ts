import type { StoredRecord } from '../core/values.js';
import { withoutPassword } from './user-output.js';
import { SESSION_CLASS, USER_CLASS } from './user-table.js';

/**
 * `_User` columns no query may name, whoever asks (the master key too): their values must not leak
 * through filters, order, projections, statistics or include. `_Session` as a whole needs the
 * master key instead.
 */
export const SECRET_COLUMNS: ReadonlySet<string> = new Set(['password']);

/**
 * The record hook of user listings and `include` expansion: `_User` records lose `password`;
 * `_Session` records never show.
 */
export function hideSecrets(className: string, record: StoredRecord): StoredRecord | null {
  if (className === USER_CLASS) return withoutPassword(record);
  if (className === SESSION_CLASS) return null;
  return record;
}
