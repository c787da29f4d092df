import postgres from 'postgres';
import type { PgClient } from '../../src/storage/postgres/index.js';

/**
 * The PostgreSQL of the tests: SVCBASE_TEST_POSTGRES or the local server's `test` database (trust
 * auth; .ci/run starts it). Each test file works in its own schema (random suffix), dropped after.
 * Outside CI an unreachable server skips the suites loudly; with CI=true it fails.
 */
export const PG_URL = process.env.SVCBASE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(): Promise<boolean> {
  const probe = postgres(PG_URL, { max: 1, connect_timeout: 2, onnotice: () => {} });
  try {
    await probe`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await probe.end({ timeout: 1 });
  }
}

/** Whether PostgreSQL answers; warns loudly (or throws with CI=true) when it does not. */
export async function postgresAvailable(suite: string): Promise<boolean> {
  const ok = await reachable();
  if (!ok) {
    if (process.env.CI === 'true') throw new Error(`[${suite}] PostgreSQL at ${PG_URL} is unreachable; CI needs it`);
    console.warn(
      `\n${'!'.repeat(78)}\n!! ${suite}: PostgreSQL at ${PG_URL} is unreachable.\n` +
        `!! SKIPPING the PostgreSQL tests. Start PostgreSQL (or set SVCBASE_TEST_POSTGRES); CI=true fails here.\n${'!'.repeat(78)}\n`,
    );
  }
  return ok;
}

/** A schema of its own for one test file: clients pointed at it, dropped (with every client ended) by `drop`. */
export interface TestSchema {
  readonly name: string;
  /** A new client whose connections use the schema. */
  client(options?: { max?: number }): PgClient & postgres.Sql;
  drop(): Promise<void>;
}

export async function createTestSchema(prefix: string): Promise<TestSchema> {
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE SCHEMA "${name}"`);
  const clients: postgres.Sql[] = [];
  return {
    name,
    client(options = {}) {
      // As docs/adapters.md asks of a client: JIT off (D199).
      const sql = postgres(PG_URL, { max: options.max ?? 4, onnotice: () => {}, connection: { search_path: name, jit: 'off' } });
      clients.push(sql);
      return sql as PgClient & postgres.Sql;
    },
    async drop() {
      await Promise.all(clients.map((c) => c.end({ timeout: 2 })));
      await admin.unsafe(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
      await admin.end({ timeout: 2 });
    },
  };
}
