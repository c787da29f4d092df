import { ExclusiveGate } from './exclusive-gate.js';


const gates = new WeakMap<object, ExclusiveGate>();

/**
 * The one gate of a better-sqlite3 connection. While the storage adapter's `transaction(work)` is
 * open on a connection, every other statement on that connection would join the transaction (and be
 * rolled back with it), so anything sharing the connection (the SQLite KvStore and CounterStore)
 * should run its operations through `connectionGate(db).run(() => ...)`: they then wait for the
 * transaction instead. Outside a transaction `run` calls the function synchronously.
 */
export function connectionGate(db: object): ExclusiveGate {
  let gate = gates.get(db);
  if (!gate) gates.set(db, (gate = new ExclusiveGate()));
  return gate;
}
