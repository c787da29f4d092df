export { type PostgresClientLike, type PostgresQueryLike, type PostgresRow } from './postgres/client.js';
export { type PostgresKvOptions, postgresKvStore } from './postgres/postgres-kv-store.js';
export { type PostgresCounterClock, type PostgresCounterOptions, postgresCounterStore } from './postgres/postgres-counter-store.js';
export { type PostgresEventBusOptions, postgresEventBus } from './postgres/postgres-event-bus.js';
/**
 * PostgreSQL storage for several svcbase instances over one database (docs/scaling.md): pass a
 * porsager `postgres` client (an optional peer dependency, typed by shape).
 *
 * @example
 * import postgres from 'postgres';
 * // JIT off: read budgets can then always cancel (docs/adapters.md, D199).
 * const sql = postgres(process.env.SVC_DATABASE_URL!, { connection: { jit: 'off' } });
 * createService({ storage: postgresStorage({ sql }), applications: [...] });
 */
export { type PostgresStorageOptions, postgresStorage } from './storage/postgres/index.js';
export type { PgClient, PgPendingQuery, PgQueryable, PgRows, PgTransactionClient } from './storage/postgres/index.js';
