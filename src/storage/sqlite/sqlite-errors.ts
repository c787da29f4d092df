import { svcError } from '../../core/errors.js';

/**
 * Maps a driver error to the client-facing one where the port names it: a UNIQUE or PRIMARY KEY
 * constraint failure becomes SvcError 401 naming the columns. Anything else is returned unchanged.
 */
export function translateSqliteError(error: unknown): unknown {
  if (typeof error !== 'object' || error === null || !('code' in error)) return error;
  const code = String((error as { code: unknown }).code);
  if (code !== 'SQLITE_CONSTRAINT_UNIQUE' && code !== 'SQLITE_CONSTRAINT_PRIMARYKEY') return error;
  // "UNIQUE constraint failed: ns__Table.col1, ns__Table.col2"
  const detail = String((error as { message?: unknown }).message ?? '').split(': ')[1] ?? '';
  const columns = detail.split(',').map((part) => part.trim().split('.').pop() ?? '').filter(Boolean);
  return svcError('uniqueViolation', columns.join(', ') || 'index');
}

/** Runs `fn`, translating driver errors with {@link translateSqliteError}. */
export function withSqliteErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw translateSqliteError(error);
  }
}
