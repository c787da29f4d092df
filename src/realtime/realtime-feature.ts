import { storeUnavailable } from '../core/store-failure.js';
import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import { limitedAddress } from '../counters/address-limit.js';
import { memoryEventBus } from '../events/memory-event-bus.js';
import type { Feature, FeatureDefinition, ServiceContext } from '../features/contract.js';
import { RECORDS } from '../records/index.js';
import { SESSIONS } from '../features/sessions-key.js';
import { USERS, endedSessionId } from '../users/index.js';
import type { FeatureSocket } from '../features/sockets.js';
import type { RouteDef, UpgradeContext, UpgradeDef } from '../features/routes.js';
import { FRAME_OVERHEAD_BYTES, RealtimeConnection } from './connection.js';
import { ConnectionSlots } from './connection-slots.js';
import { InboundBudget } from './inbound-budget.js';
import { SubscriptionEngine } from './engine.js';
import { serveJsonProtocol } from './json-protocol.js';
import { createAccessControl } from '../access/access-control.js';
import { realtimeCaller } from './realtime-caller.js';
import { type RealtimeOptions, intervalTicker, resolveRealtimeLimits } from './options.js';
import type { RealtimeSession } from './session.js';
import { serveSocketIo, socketIoHandshake } from './socketio-protocol.js';

const SID = /^[A-Za-z0-9_-]{1,64}$/;
/** The slot pool of socket.io sockets not yet bound to an application (no application id is empty). */
const UNBOUND = '';
/** How often deadlines (idle peers, connections that never subscribe) are checked, in ms. */
const SWEEP_MS = 1000;
/** An inbound budget's bucket holds this many seconds of its rate. */
const INBOUND_BURST_SECONDS = 4;

/**
 * Realtime table subscriptions (issue 18, docs/realtime.md): svcbase's JSON protocol at
 * `options.path` and the official SDK's socket.io 0.9 framing at `options.socketIoPath`, both served
 * through `service.handleUpgrade`, on one subscription engine fed by the write pipeline through the
 * event bus. Applications whose `features.realtime` is off get 11007.
 */
const CONNECTIONS_REPLY = {
  type: 'object',
  required: ['count', 'results'],
  properties: {
    count: { type: 'integer', minimum: 0 },
    results: { type: 'array', items: { type: 'object', required: ['user', 'master', 'subscriptions'], properties: { user: { type: ['string', 'null'] }, master: { type: 'boolean' }, subscriptions: { type: 'array' } } } },
  },
} as const;

export function createRealtimeFeature(ctx: ServiceContext, options: RealtimeOptions = {}): Feature {
  const limits = resolveRealtimeLimits(options);
  if (!ctx.onWrite) throw new Error('[svcbase] [realtime] the service context has no onWrite (build it with createService)');
  const given = options.bus ?? ctx.bus;
  const ownBus = given === undefined;
  const bus = given ?? memoryEventBus();
  // Every subscribe and every delivery asks access/ (the records feature's, which `createService` passes).
  const access = options.access ?? createAccessControl({ storage: ctx.storage, clock: ctx.clock });
  const engine = new SubscriptionEngine({ bus, storage: ctx.storage, logger: ctx.logger, tables: access.tables, matching: limits, ...(ctx.metrics ? { metrics: ctx.metrics } : {}) });
  const slots = new ConnectionSlots(limits.maxConnectionsPerApp, limits.maxConnectionsPerAddress);
  const budget = new InboundBudget(ctx.clock, {
    perApp: limits.maxInboundBytesPerApp,
    perAddress: limits.maxInboundBytesPerAddress,
    burstSeconds: INBOUND_BURST_SECONDS,
    minBurst: limits.maxMessageBytes + FRAME_OVERHEAD_BYTES,
  });
  const open = new Map<RealtimeConnection, () => void>();
  /** Connections signed in with a session that expires, and when (checked with the other deadlines). */
  const expiring = new Map<RealtimeConnection, { readonly at: number; readonly session: RealtimeSession; readonly user: string }>();
  let closing = false;
  // While the bus may be losing changes no socket stays open as if it missed nothing: each is closed
  // (1012) and new ones refused (11230) until the bus is back; clients reconnect, subscribe again
  // and re-read what they need (docs/realtime.md, D152).
  let busDown = false;
  const stopWatchingBus = bus.onInterruption?.((state) => {
    busDown = state === 'down';
    if (!busDown) return;
    ctx.logger.warn('realtime: the event bus is interrupted; closing realtime sockets', { sockets: open.size });
    for (const connection of [...open.keys()]) connection.close(1012, 'event bus interrupted: reconnect and subscribe again');
  });
  const removeGauge = ctx.metrics?.gauges({
    name: 'svcbase_realtime_connections',
    help: 'Open realtime connections on this instance, by application.',
    sampled: true,
    read: () => [...ctx.applications.values()].filter((app) => app.settings.features.realtime).map((app) => ({ app: app.applicationId, value: slots.count(app.applicationId) })),
  });

  // Observing costs every write a before-image read, so only when some application has realtime on.
  const realtimeApps = [...ctx.applications.values()].filter((app) => app.settings.features.realtime);
  // A session that ends (its `_Session` row deleted or changed, on any path) closes its connections on every instance.
  const stopObserving = realtimeApps.length === 0 ? () => {} : ctx.onWrite((event) => {
    const app = ctx.applications.get(event.app);
    if (!app?.settings.features.realtime) return;
    const ended = endedSessionId(event);
    if (ended !== null) engine.endSession(app, ended);
    else engine.publish(app, event);
  });
  const ticker = options.ticker ?? intervalTicker;
  const stopSweeping = ticker.every(SWEEP_MS, () => {
    budget.prune();
    for (const connection of open.keys()) {
      if (connection.isIdle()) connection.terminate();
      else if (connection.subscriptionOverdue()) connection.close(1008, `no subscription within ${limits.subscribeTimeoutMs} ms`);
    }
    const now = ctx.clock.now();
    for (const [connection, { at, session, user }] of expiring) {
      if (at > now) continue;
      expiring.delete(connection);
      ctx.logger.info('realtime: session expired; connection closed', { applicationId: session.caller.app.applicationId, user });
      session.sessionEnded();
    }
  });
  const stopHeartbeats = ticker.every(limits.heartbeatMs, () => {
    for (const [connection, heartbeat] of open) if (!connection.closed) heartbeat();
  });
  /** The client address that per-address shares count, or undefined (the share is skipped, logged once). */
  const addressOf = (upgrade: UpgradeContext) =>
    limitedAddress(ctx.logger, upgrade.remoteAddress, 'realtime.maxConnectionsPerAddress') ? upgrade.remoteAddress : undefined;

  /** Completes the WebSocket handshake and tracks the connection until it closes. */
  async function accept(upgrade: UpgradeContext, inbound: { applicationId: string; address: string | undefined }, heartbeat: (connection: RealtimeConnection) => void, serve: (socket: FeatureSocket, connection: RealtimeConnection) => void): Promise<void> {
    const socket = await upgrade.accept({ maxPayload: limits.maxMessageBytes });
    if (!socket) return;
    if (closing) return socket.close(1001, 'server closing');
    const connection = new RealtimeConnection(socket, limits, ctx.clock, () => ctx.logger.warn('realtime: slow consumer cut', { limit: limits.maxBufferedBytes }));
    connection.drawOn(budget.open(inbound.applicationId, inbound.address));
    open.set(connection, () => heartbeat(connection));
    socket.onClose(() => {
      connection.gone();
      open.delete(connection);
      expiring.delete(connection);
    });
    socket.onError((error) => ctx.logger.debug('realtime: socket error', { error: String(error) }));
    serve(socket, connection);
  }

  const upgrades: UpgradeDef[] = [
    {
      path: limits.path,
      auth: 'app',
      handler: async (upgrade) => {
        const app = upgrade.app!;
        if (!app.settings.features.realtime) throw svcError('featureDisabled', 'realtime');
        if (busDown) throw storeUnavailable('shared store');
        const user = upgrade.auth.sessionToken ? await upgrade.user() : null;
        if (upgrade.auth.sessionToken && !user) throw svcError('sessionInvalid');
        const address = addressOf(upgrade);
        const release = slots.reserve(app.applicationId, address);
        upgrade.onEnd(release);
        const token = upgrade.auth.sessionToken ?? null;
        const caller = realtimeCaller(access, { app, isMaster: upgrade.auth.isMaster, user, sessionToken: token, credential: 'rest' });
        // Asked again once the connection listens: a session that ended since the lookup above was announced before it could hear.
        const resolver = options.sessions?.();
        const stillSignedIn = user && token !== null && resolver ? async () => (await resolver.resolve(app, token))?.sessionId === user.sessionId : undefined;
        await accept(upgrade, { applicationId: app.applicationId, address }, (connection) => connection.ping(), (socket, connection) => {
          const session = serveJsonProtocol(socket, connection, caller, {
            engine,
            access,
            storage: ctx.storage,
            logger: ctx.logger,
            maxSubscriptions: limits.maxSubscriptionsPerConnection,
            maxWhereCost: limits.maxWhereCostPerConnection,
            ...(stillSignedIn ? { stillSignedIn } : {}),
          });
          if (user?.expiresAt !== undefined) expiring.set(connection, { at: user.expiresAt, session, user: user.objectId });
        });
      },
    },
  ];
  const routes: RouteDef[] = [
    {
      method: 'GET',
      path: '/1/realtime/connections',
      auth: 'master',
      body: 'none',
      summary: "This instance's realtime connections of the application, with their users and subscriptions (the admin console's realtime page)",
      responses: { 200: CONNECTIONS_REPLY },
      handler: (rc) => {
        const results = engine.describe(rc.caller.app.applicationId);
        return { body: { count: results.length, results: results as unknown as Json } };
      },
    },
  ];
  if (limits.socketIoPath !== false) {
    const base = limits.socketIoPath.replace(/\/+$/, '');
    routes.push({
      method: 'GET',
      path: `${base}/1/`,
      auth: 'none',
      body: 'none',
      handler: () => ({ body: socketIoHandshake(Buffer.from(ctx.random.bytes(15)).toString('base64url')), raw: true, headers: { 'content-type': 'text/plain; charset=utf-8' } }),
    });
    upgrades.push({
      path: `${base}/1/websocket/:sid`,
      auth: 'none',
      handler: async (upgrade) => {
        if (!SID.test(upgrade.params.sid ?? '')) throw svcError('realtimeBadMessage', 'the socket.io session id is malformed');
        if (busDown) throw storeUnavailable('shared store');
        // Until its first subscription names an application, a socket holds a slot of the unbound pool.
        const address = addressOf(upgrade);
        const releaseUnbound = slots.reserve(UNBOUND, address);
        upgrade.onEnd(releaseUnbound);
        await accept(upgrade, { applicationId: UNBOUND, address }, (connection) => connection.send('2:::'), (socket, connection) =>
          serveSocketIo(socket, connection, {
            engine,
            access,
            applications: ctx.applications,
            slots,
            logger: ctx.logger,
            maxSubscriptions: limits.maxSubscriptionsPerConnection,
            budget,
            address,
            onBound: releaseUnbound,
          }),
        );
      },
    });
  }

  return {
    name: 'realtime',
    routes,
    upgrades,
    async close() {
      closing = true;
      stopWatchingBus?.();
      removeGauge?.();
      stopObserving();
      stopSweeping();
      stopHeartbeats();
      for (const connection of [...open.keys()]) connection.close(1001, 'server closing');
      await engine.close();
      for (const connection of [...open.keys()]) connection.terminate();
      if (ownBus) await bus.close?.();
    },
  };
}

/**
 * Realtime as a feature definition, after users and records: subscriptions ask the records feature's
 * access control (shared roles and permissions) unless `options.access` is given, and connections
 * check their session with the users feature's resolver (the SESSIONS key) unless `options.sessions` is.
 */
export function realtimeFeature(options: RealtimeOptions = {}): FeatureDefinition {
  return {
    id: 'realtime',
    after: [USERS.id, RECORDS.id],
    init(ctx) {
      const access = options.access ?? ctx.find(RECORDS)?.access;
      const feature = createRealtimeFeature(ctx, { sessions: () => ctx.find(SESSIONS), ...options, ...(access ? { access } : {}) });
      return { routes: feature.routes, upgrades: feature.upgrades, close: () => feature.close?.() };
    },
  };
}
