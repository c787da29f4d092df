export { type PostgresStorageOptions, postgresStorage } from './postgres-adapter.js';
export type { PgClient, PgPendingQuery, PgQueryable, PgRows, PgTransactionClient } from './pg-client.js';
