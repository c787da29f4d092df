import { describe, expect, it } from 'vitest';
import { ensureSchema, type PostgresQueryLike } from '../../src/postgres/client.js';

/** A client whose statements fail with the given driver errors first, then succeed. */
function failingFirst(...errors: object[]): PostgresQueryLike & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    unsafe: async (query: string) => {
      calls.push(query);
      const error = errors.shift();
      if (error) throw Object.assign(new Error('driver error'), error);
      return [];
    },
  };
}

describe('ensureSchema (stores created by several instances at once)', () => {
  // Two CREATE TABLE IF NOT EXISTS at once fail with one of these; the CI run of 2026-11-29 met 42710.
  it.each([
    ['42710 type already exists', { code: '42710' }],
    ['42P07 relation already exists', { code: '42P07' }],
    ['23505 on the catalog', { code: '23505', constraint_name: 'pg_type_typname_nsp_index', schema_name: 'pg_catalog' }],
    ['40P01 deadlock', { code: '40P01' }],
  ])('retries a statement that lost a race: %s', async (_, error) => {
    const sql = failingFirst(error);
    await ensureSchema(sql, ['CREATE TABLE IF NOT EXISTS a ()', 'CREATE INDEX IF NOT EXISTS i ON a ()']);
    expect(sql.calls).toEqual(['CREATE TABLE IF NOT EXISTS a ()', 'CREATE TABLE IF NOT EXISTS a ()', 'CREATE INDEX IF NOT EXISTS i ON a ()']);
  });

  it('does not retry other errors: a unique violation on a data table, a syntax error', async () => {
    for (const error of [{ code: '23505', constraint_name: 'kv_pkey', schema_name: 'public' }, { code: '42601' }]) {
      const sql = failingFirst(error);
      await expect(ensureSchema(sql, ['CREATE TABLE x ()', 'never run'])).rejects.toMatchObject(error);
      expect(sql.calls).toEqual(['CREATE TABLE x ()']);
    }
  });

  it('gives up after a bounded number of attempts', async () => {
    const sql = failingFirst(...Array.from({ length: 50 }, () => ({ code: '40001' })));
    await expect(ensureSchema(sql, ['CREATE TABLE x ()'])).rejects.toMatchObject({ code: '40001' });
    expect(sql.calls.length).toBeLessThan(50);
  });
});
