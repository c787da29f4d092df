import type { FeatureSocket } from '../features/sockets.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Json } from '../core/wire-values.js';
import type { StorageAdapter } from '../storage/port.js';
import { type ClientMessage, parseClientMessage, usableId } from './client-message.js';
import type { RealtimeConnection } from './connection.js';
import type { EventFormat } from './dispatch-list.js';
import type { SubscriptionEngine } from './engine.js';
import type { AccessControl } from '../access/access-control.js';
import { type RealtimeCaller, assertMaySubscribe } from './realtime-caller.js';
import { RealtimeSession } from './session.js';
import type { Subscription } from './subscription.js';
import { merged } from '../core/copy.js';

export interface JsonProtocolDeps {
  readonly engine: SubscriptionEngine;
  /** Subscribes are checked as REST finds are (`assertMaySubscribe`). */
  readonly access: AccessControl;
  readonly storage: StorageAdapter;
  readonly logger: Logger;
  readonly maxSubscriptions: number;
  /** The connection's where budget (`maxWhereCostPerConnection`; default: none). */
  readonly maxWhereCost?: number;
  /**
   * Whether the session the caller signed in with still resolves, asked once the connection listens
   * (from then on an ended session's announcement reaches it): a session ended while the connection
   * opened closes it instead of greeting (absent without a session).
   */
  readonly stillSignedIn?: () => Promise<boolean>;
}

/**
 * The frame of `JSON.stringify({ op, id, action, tableName, objectId, data })`, with the record's JSON written once per
 * change and view; built once per change, view, action and subscription id, and shared by connections that number
 * their subscriptions alike.
 */
const JSON_EVENT: EventFormat = {
  key: (subscription, action) => `json:${action}:${subscription.id}`,
  frame: (subscription, match, data) =>
    `{"op":"event","id":${JSON.stringify(subscription.id)},"action":${JSON.stringify(match.action)},"tableName":${JSON.stringify(subscription.className)},"objectId":${JSON.stringify(match.record.objectId)},"data":${data.json}}`,
  // A subscription the server drops is named by its id, as a refused subscribe is.
  error: (subscription, error) => JSON.stringify(subscription ? merged({ id: subscription.id }, errorBody(error)) : errorBody(error)),
};

/**
 * svcbase's JSON-over-WebSocket protocol on an authenticated socket (docs/realtime.md): one JSON
 * object per text frame each way. Messages of one connection are handled in order. Returns the
 * connection's session (ended by the feature when its caller's session expires).
 */
export function serveJsonProtocol(socket: FeatureSocket, connection: RealtimeConnection, caller: RealtimeCaller, deps: JsonProtocolDeps): RealtimeSession {
  const send = (message: { [key: string]: Json }) => connection.send(JSON.stringify(message));
  const session = new RealtimeSession(caller, deps.engine, connection, JSON_EVENT, deps.maxSubscriptions, deps.maxWhereCost);
  let queue = start();

  socket.onMessage((message) => {
    connection.heard();
    if (connection.closed) return; // frames still arriving after a close are not read
    // Every limit on client frames is checked before the frame is parsed (docs/realtime.md, "Inbound budgets").
    const refusal = connection.admit(typeof message === 'string' ? message.length : message.byteLength);
    if (refusal) {
      send(errorBody(refusal));
      return;
    }
    const text = typeof message === 'string' ? message : null;
    queue = queue.then(() => handle(text)).finally(() => connection.handled()).catch((error: unknown) => deps.logger.error('realtime: message failed', { error: String(error) }));
  });
  socket.onClose(() => {
    session.clear();
    deps.engine.detach(session);
  });
  return session;

  /** Greets once the connection listens to its application's channel, unless its session ended meanwhile. */
  async function start(): Promise<void> {
    try {
      await deps.engine.attach(session);
    } catch (error) {
      deps.logger.error('realtime: bus subscription failed', { error: String(error) });
      connection.close(1011, 'bus unavailable');
      return;
    }
    let signedIn = true;
    try {
      if (deps.stillSignedIn) signedIn = await deps.stillSignedIn();
    } catch (error) {
      deps.logger.error('realtime: session check failed', { error: String(error) });
      connection.close(1011, 'session check failed');
      return;
    }
    if (signedIn) {
      send({ op: 'connected', applicationId: caller.app.applicationId, user: caller.user?.objectId ?? null });
      return;
    }
    deps.logger.info('realtime: session ended; connection closed', { applicationId: caller.app.applicationId, user: caller.user?.objectId ?? null });
    session.sessionEnded();
  }

  async function handle(text: string | null): Promise<void> {
    let id: string | undefined;
    try {
      if (text === null) throw svcError('realtimeBadMessage', 'binary frames are not accepted');
      const message = parseClientMessage(text);
      if (message.op !== 'ping') id = message.id;
      await apply(message);
    } catch (error) {
      if (!isSvcError(error)) deps.logger.error('realtime: message failed', { error: String(error) });
      id ??= text === null ? undefined : idOf(text);
      send(id !== undefined ? merged({ id }, errorBody(error)) : errorBody(error));
    }
  }

  async function apply(message: ClientMessage): Promise<void> {
    if (message.op === 'ping') {
      send({ op: 'pong' });
      return;
    }
    if (message.op === 'unsubscribe') {
      if (!session.remove(message.id)) throw svcError('realtimeUnknownSubscription', message.id);
      send({ op: 'unsubscribed', id: message.id });
      return;
    }
    if (session.has(message.id)) throw svcError('realtimeDuplicateSubscription', message.id);
    const view = await assertMaySubscribe(deps.access, caller, message.className);
    let subscription: Subscription;
    if ('where' in message) {
      session.assertRoom();
      const schema = await deps.storage.getSchema({ namespace: caller.app.namespace, className: message.className });
      const request = { app: caller.app, className: message.className, where: message.where, schema, hidden: view.hidden };
      subscription = deps.engine.whereSubscription(message.id, request, (cost) => session.assertRoom(cost));
    } else {
      subscription = { kind: 'action', id: message.id, action: message.action, className: message.className, ...(message.objectId !== undefined ? { objectId: message.objectId } : {}) };
    }
    session.add(subscription);
    connection.markSubscribed();
    send({ op: 'subscribed', id: message.id });
  }
}

/** The id of a refused message, when it has a usable one (so the client can tell which request failed). */
function idOf(text: string): string | undefined {
  try {
    return usableId((JSON.parse(text) as { id?: unknown } | null)?.id);
  } catch {
    return undefined;
  }
}

/** The error frame: the coded error, or (for a bug, already logged) an uncoded internal error. */
function errorBody(error: unknown): { op: 'error'; code?: number; error: string } {
  if (isSvcError(error)) return { op: 'error', code: error.code, error: error.message };
  return { op: 'error', error: 'internal server error' };
}
