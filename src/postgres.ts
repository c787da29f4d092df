export { type PostgresClientLike, type PostgresQueryLike, type PostgresRow } from './postgres/client.js';
export { type PostgresKvOptions, postgresKvStore } from './postgres/postgres-kv-store.js';
export { type PostgresCounterClock, type PostgresCounterOptions, postgresCounterStore } from './postgres/postgres-counter-store.js';
export { type PostgresEventBusOptions, postgresEventBus } from './postgres/postgres-event-bus.js';
