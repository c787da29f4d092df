import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { postgresClientOptions } from '../../src/cli/stores.js';
import { PG_URL, postgresAvailable } from '../postgres/pg-test-db.js';

const available = await postgresAvailable('pg-client-options');

/** `svcbase serve`'s postgres client, on a real server: every connection has JIT off (D199). */
describe.skipIf(!available)('the CLI postgres client', () => {
  it('turns JIT off on each of its connections', async () => {
    const sql = postgres(PG_URL, postgresClientOptions(() => undefined));
    try {
      // Two statements at once take two connections of the pool.
      const answers = await Promise.all([sql.unsafe('SELECT current_setting($1) AS jit, pg_sleep(0.05)', ['jit']), sql.unsafe('SELECT current_setting($1) AS jit, pg_backend_pid() AS pid', ['jit'])]);
      expect(answers.map((rows) => rows[0]!['jit'])).toEqual(['off', 'off']);
    } finally {
      await sql.end({ timeout: 2 });
    }
  });
});
