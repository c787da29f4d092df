import { svcError } from '../../core/errors.js';

/** The SQLSTATE of a driver error (postgres.js puts it in `.code`), or '' for anything else. */
export function sqlState(error: unknown): string {
  if (typeof error !== 'object' || error === null || !('code' in error)) return '';
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : '';
}

/** A unique violation on the system catalog: two sessions created the same relation at once (a race, not a duplicate row). */
export function isCatalogRace(error: unknown): boolean {
  const state = sqlState(error);
  if (state === '42P07' || state === '42701' || state === '42710') return true; // duplicate table / column / object
  if (state !== '23505') return false;
  const e = error as { constraint_name?: unknown; schema_name?: unknown };
  return String(e.constraint_name ?? '').startsWith('pg_') || e.schema_name === 'pg_catalog';
}

/** Serialization failure or deadlock: the statement can simply run again. */
export function isRetryable(error: unknown): boolean {
  const state = sqlState(error);
  return state === '40001' || state === '40P01';
}

/**
 * Maps a driver error to the client-facing one where the port names it: a unique violation (23505)
 * on a data table becomes SvcError 401 naming the columns (from the server's `Key (a, b)=(...)`
 * detail); U+0000 in a bound value becomes 11120. Anything else is returned unchanged.
 */
export function translatePgError(error: unknown): unknown {
  const state = sqlState(error);
  // A query value holding U+0000 (22021 in text, 22P05 in jsonb): the same refusal as a write (D63).
  if (state === '22021' || state === '22P05') return svcError('nulCharacterRefused', 'a query value');
  // A number past the double range (an Increment's sum): refused as a non-finite value is on the wire.
  if (state === '22003') return svcError('typeMismatch', 'a number', 'Number', 'non-finite');
  if (state !== '23505' || isCatalogRace(error)) return error;
  const detail = String((error as { detail?: unknown }).detail ?? '');
  const match = /^Key \((.*?)\)=/.exec(detail);
  const columns = match ? match[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, '')).filter(Boolean) : [];
  return svcError('uniqueViolation', columns.join(', ') || 'index');
}

/** Awaits `work`, translating driver errors with {@link translatePgError}. */
export async function withPgErrors<T>(work: () => PromiseLike<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw translatePgError(error);
  }
}

/**
 * Runs a schema statement, retrying it when a concurrent instance raced it: serialization failures
 * and deadlocks (40001/40P01) and catalog duplicates of `IF NOT EXISTS` statements run at the same
 * moment (23505 on pg_catalog, 42P07/42701/42710), up to `attempts` times. No advisory locks (D62).
 */
export async function retryingDdl<T>(work: () => PromiseLike<T>, attempts = 8): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts || !(isRetryable(error) || isCatalogRace(error))) throw error;
      // Let the competing session commit before trying again (an event-loop turn, not a timed sleep).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}
