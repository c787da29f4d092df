import { createHash, randomBytes } from 'node:crypto';
import { reservedTransaction } from '../storage/postgres/pg-transaction.js';
import { configError } from '../core/errors.js';
import { type BusListener, BusStateListeners, type EventBus } from '../events/port.js';
import type { PostgresClientLike } from './client.js';
import { PartAssembler, frameMessage } from './notify-chunks.js';

export interface PostgresEventBusOptions {
  /** A porsager `postgres` client (typed by shape); LISTEN runs on the dedicated connection it keeps. The host owns it. */
  sql: PostgresClientLike;
  /** Prepended to every channel name (default `svc:`). */
  prefix?: string;
}

/** PostgreSQL channel names are identifiers: at most 63 bytes. */
const MAX_CHANNEL_BYTES = 63;

/**
 * EventBus on PostgreSQL LISTEN/NOTIFY, for deployments without Redis. `publish` runs `pg_notify`
 * (messages over ~7.9 KB are split into parts sent in one transaction and joined by the receivers);
 * `subscribe` LISTENs on the client's dedicated listen connection, which porsager reconnects and
 * re-LISTENs by itself. Notifications are delivered when the sending transaction commits, at most
 * once (a message sent while the listen connection is down is lost), in order per publisher and
 * channel (this bus sends its publications one after another). `onInterruption` reports a gap (`down`
 * then `up`) when a channel is listened to again after the listen connection came back. Not through PgBouncer in
 * transaction mode, and not on CockroachDB (no LISTEN). Messages cannot contain U+0000.
 *
 * @example const bus = postgresEventBus({ sql: postgres(process.env.SVC_DATABASE_URL) });
 */
export function postgresEventBus(options: PostgresEventBusOptions): EventBus {
  const sql = options.sql;
  const prefix = options.prefix ?? 'svc:';
  if (typeof prefix !== 'string') throw configError('postgres-bus', 'prefix must be a string');
  const instance = randomBytes(6).toString('base64url');
  let sequence = 0;
  let tail: Promise<unknown> = Promise.resolve();
  const channels = new Map<string, { listeners: Set<BusListener>; listening: Promise<{ unlisten(): Promise<void> }> }>();
  let closed = false;
  const states = new BusStateListeners();

  const send = async (channel: string, message: string) => {
    const payloads = frameMessage(`${instance}${(sequence++).toString(36)}`, message);
    const notify = 'SELECT pg_notify($1, $2)';
    if (payloads.length === 1) await sql.unsafe(notify, [channel, payloads[0]], { prepare: true });
    else await reservedTransaction(sql, '', async (tx) => {
      for (const payload of payloads) await tx.unsafe(notify, [channel, payload], { prepare: true });
    });
  };

  return {
    publish(channel, message) {
      if (message.includes('\u0000')) throw configError('postgres-bus', 'a message cannot contain U+0000 (PostgreSQL text)');
      const pgChannel = channelName(prefix + channel);
      // One after another: each publish may use another pooled connection, and order per publisher is the contract.
      const sent = tail.catch(() => {}).then(() => send(pgChannel, message));
      tail = sent;
      return sent;
    },
    async subscribe(channel, listener) {
      if (closed) throw configError('postgres-bus', 'subscribe on a closed bus');
      const pgChannel = channelName(prefix + channel);
      const entry: BusListener = (message) => listener(message);
      let state = channels.get(pgChannel);
      if (!state) {
        const listeners = new Set<BusListener>();
        const assembler = new PartAssembler();
        const deliver = (payload: string) => {
          const message = assembler.accept(payload);
          if (message === null) return;
          for (const l of [...listeners]) {
            try {
              l(message);
            } catch {
              // Isolated by contract: one listener's failure never stops the others.
            }
          }
        };
        // porsager calls onlisten at each LISTEN, again after its connection came back: a gap is over.
        let listens = 0;
        const onListen = () => {
          if (listens++ === 0 || closed) return;
          states.report('down');
          states.report('up');
        };
        state = { listeners, listening: sql.listen(pgChannel, deliver, onListen) };
        channels.set(pgChannel, state);
      }
      state.listeners.add(entry);
      const current = state;
      try {
        await current.listening;
      } catch (error) {
        current.listeners.delete(entry);
        if (channels.get(pgChannel) === current) channels.delete(pgChannel);
        throw error;
      }
      return async () => {
        if (!current.listeners.delete(entry) || current.listeners.size > 0 || channels.get(pgChannel) !== current) return;
        channels.delete(pgChannel);
        await (await current.listening).unlisten();
      };
    },
    onInterruption: (listener) => states.add(listener),
    async close() {
      if (closed) return;
      closed = true;
      const states = [...channels.values()];
      channels.clear();
      for (const state of states) {
        state.listeners.clear();
        await (await state.listening.catch(() => null))?.unlisten();
      }
      await tail.catch(() => {});
    },
  };
}

/** The PostgreSQL channel of a bus channel: itself when it fits an identifier, else a hash of it. */
function channelName(channel: string): string {
  if (Buffer.byteLength(channel) <= MAX_CHANNEL_BYTES && !channel.includes('\u0000')) return channel;
  return `svc#${createHash('sha256').update(channel).digest('base64url').slice(0, 43)}`;
}
