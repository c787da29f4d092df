import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** The PostgreSQL the tests use: SVCBASE_TEST_POSTGRES or the local server's `test` database (trust auth). */
export const POSTGRES_URL = process.env.SVCBASE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A client on a fresh schema of its own (dropped by `drop()`), or null when PostgreSQL is unreachable:
 * outside CI the suite is then skipped with a loud message; with CI=true the run fails.
 */
export async function connectTestPostgres(suite: string, options: postgres.Options<{}> = {}) {
  const probe = postgres(POSTGRES_URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await probe`SELECT 1`;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (process.env.CI === 'true') throw new Error(`[${suite}] PostgreSQL at ${POSTGRES_URL} is unreachable (${reason}); CI needs it`);
    console.warn(
      `\n${'!'.repeat(78)}\n!! ${suite}: PostgreSQL at ${POSTGRES_URL} is unreachable (${reason}).\n` +
        `!! SKIPPING the PostgreSQL store tests. Start PostgreSQL (or set SVCBASE_TEST_POSTGRES); CI=true fails here.\n${'!'.repeat(78)}\n`,
    );
    return null;
  } finally {
    await probe.end({ timeout: 1 });
  }
  const schema = `svc_${suite.replace(/\W/g, '_')}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(POSTGRES_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA "${schema}"`);
  await admin.end();
  const sql = postgres(POSTGRES_URL, { max: 10, onnotice: () => {}, ...options });
  return {
    sql,
    schema,
    async drop() {
      await sql.unsafe(`DROP SCHEMA "${schema}" CASCADE`);
      await sql.end({ timeout: 2 });
    },
  };
}
