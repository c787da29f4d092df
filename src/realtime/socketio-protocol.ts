import type { FeatureSocket } from '../features/sockets.js';
import type { Application } from '../app/application.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Json } from '../core/wire-values.js';
import { isValidTableName } from '../core/names.js';
import type { RealtimeConnection } from './connection.js';
import type { EventFormat } from './dispatch-list.js';
import type { ConnectionSlots } from './connection-slots.js';
import type { InboundBudget } from './inbound-budget.js';
import type { SubscriptionEngine } from './engine.js';
import type { AccessControl } from '../access/access-control.js';
import { assertMaySubscribe, realtimeCaller } from './realtime-caller.js';
import { RealtimeSession } from './session.js';
import { TABLE_ACTIONS, type TableAction } from './subscription.js';

/** The handshake answer: `sid:heartbeatTimeout:closeTimeout:transports` (sdk-wire.md §7). */
export function socketIoHandshake(sid: string): string {
  return `${sid}:60:60:websocket`;
}

/** socket.io 0.9 event frames: `5:<id>[+]:<endpoint>:<json>`. */
const EVENT_FRAME = /^5:(\d*\+?):([^:]*):([\s\S]*)$/;
const OBJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface SocketIoDeps {
  readonly engine: SubscriptionEngine;
  /** Subscribes are checked as an anonymous REST find is (`assertMaySubscribe`). */
  readonly access: AccessControl;
  readonly applications: ReadonlyMap<string, Application>;
  readonly slots: ConnectionSlots;
  readonly logger: Logger;
  readonly maxSubscriptions: number;
  /** Once bound, the socket's frames draw on its application's inbound budget (before: the unbound pool's). */
  readonly budget: InboundBudget;
  /** The client's address, counted against the application's per-address share once bound (none: not counted). */
  readonly address: string | undefined;
  /** Called once the socket is bound to an application (it then holds that application's slot). */
  readonly onBound: () => void;
}

/** An event frame as the SDK reads it: it drops 4 characters, then parses `{name, args}`, then `args[0]` again. */
export function socketIoEvent(name: string, payload: Json): string {
  return socketIoFrame(name, JSON.stringify(payload));
}

/** The same frame from the payload's JSON text. */
function socketIoFrame(name: string, payloadJson: string): string {
  return `5:::${JSON.stringify({ name, args: [payloadJson] })}`;
}

/** The `server_pub` frame; it names no subscription, so every subscriber of one view gets the same frame for a change's action. */
const SIO_EVENT: EventFormat = {
  key: (subscription, action) => `sio:${subscription.kind === 'action' ? subscription.action : action}:${subscription.className}`,
  frame: (subscription, match, data) => {
    const action = subscription.kind === 'action' ? subscription.action : match.action;
    return socketIoFrame('server_pub', `{"action":${JSON.stringify(action)},"tableName":${JSON.stringify(subscription.className)},"objectId":${JSON.stringify(match.record.objectId)},"data":${data.json}}`);
  },
  // The framing names no subscription in its frames (and its subscriptions are actions, which no dispatch drops): the coded `error` event.
  error: (_subscription, error) => errorEvent(error),
};

/**
 * The official SDK's socket.io 0.9 framing (`Bmob.Socket(appId)`), exactly as sdk-wire.md §7: `1::`
 * on connect, then `client_send_data` (the SDK's "connected" hook); `client_sub`/`client_unsub`
 * events whose one argument is a JSON string `{appKey, tableName, objectId, action}`; pushes as
 * `server_pub`. The first subscription binds the socket to its application (`appKey` is the
 * application id); such a subscriber is anonymous. Coded errors go back as an `error` event.
 */
export function serveSocketIo(socket: FeatureSocket, connection: RealtimeConnection, deps: SocketIoDeps): void {
  let session: RealtimeSession | undefined;
  let release: (() => void) | undefined;
  let queue: Promise<void> = Promise.resolve();
  connection.send('1::');
  connection.send(socketIoEvent('client_send_data', {}));

  socket.onMessage((message) => {
    connection.heard();
    if (connection.closed) return; // frames still arriving after a close are not read
    // Every limit on client frames is checked before the frame is parsed (docs/realtime.md, "Inbound budgets").
    const refusal = connection.admit(typeof message === 'string' ? message.length : message.byteLength);
    if (refusal) {
      connection.send(errorEvent(refusal));
      return;
    }
    const text = typeof message === 'string' ? message : null;
    queue = queue.then(() => handle(text)).finally(() => connection.handled()).catch((error: unknown) => deps.logger.error('realtime: socket.io frame failed', { error: String(error) }));
  });
  socket.onClose(() => {
    if (session) {
      session.clear();
      deps.engine.detach(session);
    }
    release?.();
  });

  async function handle(text: string | null): Promise<void> {
    try {
      if (text === null) throw svcError('realtimeBadMessage', 'binary frames are not accepted');
      if (text.startsWith('2::')) return; // the heartbeat answer: heard() already noted it
      if (text.startsWith('0::')) {
        connection.close(1000, 'disconnect');
        return;
      }
      const frame = EVENT_FRAME.exec(text);
      if (!frame) throw svcError('realtimeBadMessage', 'expected a socket.io 0.9 event frame 5:::{...}');
      await event(frame[3]!);
    } catch (error) {
      if (!isSvcError(error)) deps.logger.error('realtime: socket.io frame failed', { error: String(error) });
      connection.send(errorEvent(error));
    }
  }

  async function event(body: string): Promise<void> {
    const { name, request } = parseEvent(body);
    const app = deps.applications.get(request.appKey);
    if (!app) throw svcError('realtimeBadMessage', 'appKey names no application');
    if (!app.settings.features.realtime) throw svcError('featureDisabled', 'realtime');
    if (!session) {
      const releaseSlot = deps.slots.reserve(app.applicationId, deps.address);
      const caller = realtimeCaller(deps.access, { app, isMaster: false, user: null, sessionToken: null, credential: 'rest' });
      const bound = new RealtimeSession(caller, deps.engine, connection, SIO_EVENT, deps.maxSubscriptions);
      try {
        await deps.engine.attach(bound);
      } catch (error) {
        deps.engine.detach(bound);
        releaseSlot();
        throw error;
      }
      session = bound;
      release = releaseSlot;
      connection.drawOn(deps.budget.open(app.applicationId, deps.address));
      deps.onBound();
      if (connection.closed) {
        // The socket closed while attaching: its close handler ran before the session existed.
        deps.engine.detach(bound);
        releaseSlot();
        return;
      }
    } else if (session.caller.app !== app) {
      throw svcError('realtimeBadMessage', 'one socket serves one application');
    }
    const id = `${request.action}:${request.tableName}:${request.objectId ?? ''}`;
    if (name === 'client_unsub') {
      session.remove(id); // unsubscribing twice is harmless
      return;
    }
    if (session.has(id)) return; // subscribing twice is harmless: one subscription, one push per change
    await assertMaySubscribe(deps.access, session.caller, request.tableName);
    session.add({ kind: 'action', id, action: request.action, className: request.tableName, ...(request.objectId !== undefined ? { objectId: request.objectId } : {}) });
    connection.markSubscribed();
  }
}

interface SdkRequest {
  readonly appKey: string;
  readonly tableName: string;
  readonly action: TableAction;
  readonly objectId?: string;
}

/** Parses `{"name":…,"args":["<json string>"]}` of a client_sub / client_unsub frame. */
function parseEvent(body: string): { name: 'client_sub' | 'client_unsub'; request: SdkRequest } {
  const outer = parseJson(body);
  const name = outer?.name;
  if (name !== 'client_sub' && name !== 'client_unsub') throw svcError('realtimeBadMessage', 'event name must be client_sub or client_unsub');
  const args = outer!.args;
  if (!Array.isArray(args) || typeof args[0] !== 'string') throw svcError('realtimeBadMessage', 'args must hold one JSON string');
  const inner = parseJson(args[0]);
  if (!inner) throw svcError('realtimeBadMessage', 'args[0] must be a JSON object');
  const { appKey, tableName, objectId } = inner;
  let action = inner.action;
  if (typeof appKey !== 'string') throw svcError('realtimeBadMessage', 'appKey must be a string');
  if (typeof tableName !== 'string' || !isValidTableName(tableName)) throw svcError('realtimeBadMessage', 'tableName must be a table name');
  if (name === 'client_unsub') {
    if (typeof action !== 'string' || !action.startsWith('unsub_')) throw svcError('realtimeBadMessage', 'client_unsub actions are unsub_<action>');
    action = action.slice('unsub_'.length);
  }
  if (typeof action !== 'string' || !TABLE_ACTIONS.has(action)) throw svcError('realtimeBadMessage', 'action must be updateTable, updateRow, deleteTable or deleteRow');
  const row = action === 'updateRow' || action === 'deleteRow';
  if (row && (typeof objectId !== 'string' || !OBJECT_ID.test(objectId))) throw svcError('realtimeBadMessage', `${action} needs an objectId`);
  return { name, request: { appKey, tableName, action: action as TableAction, ...(row ? { objectId: objectId as string } : {}) } };
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function errorEvent(error: unknown): string {
  if (isSvcError(error)) return socketIoEvent('error', { code: error.code, error: error.message });
  return socketIoEvent('error', { error: 'internal server error' });
}
