import { randomBytes } from 'node:crypto';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/port.js';

/**
 * What one instance changed that other instances cache: a namespace's roles, a table's class-level
 * permissions, or a table's schema (columns, indexes, the table itself, through the schema API).
 */
export type AccessChange =
  | { readonly kind: 'roles'; readonly namespace: string }
  | { readonly kind: 'classPermissions'; readonly namespace: string; readonly className: string }
  | { readonly kind: 'schema'; readonly namespace: string; readonly className: string };

export interface AccessChangeChannel {
  /** Tells the other instances (never fails: a lost message leaves them on their cache's time bound). */
  announce(change: AccessChange): void;
  close(): Promise<void>;
}

export interface AccessChangeChannelOptions {
  readonly bus: EventBus;
  readonly logger: Logger;
  /** Called for every change another instance announced. */
  readonly onRemote: (change: AccessChange) => void;
  /** Default `svcbase:access`. */
  readonly channel?: string;
  /** This instance's id (default: random); its own announcements are not handed back to it. */
  readonly instanceId?: string;
}

/** Reads an announcement; null for anything else (a bus is shared, so foreign text is possible). */
function parseChange(message: string): { readonly from: string; readonly change: AccessChange } | null {
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { from, kind, namespace, className } = value as Record<string, unknown>;
  if (typeof from !== 'string' || typeof namespace !== 'string') return null;
  if (kind === 'roles') return { from, change: { kind, namespace } };
  if ((kind === 'classPermissions' || kind === 'schema') && typeof className === 'string') return { from, change: { kind, namespace, className } };
  return null;
}

/**
 * Cache invalidation between instances over the service's event bus: after this instance writes a
 * role, a table's class-level permissions or a table's schema it announces it, and every other
 * instance drops that entry at once instead of serving it until its time bound (roles 5 s, the rest
 * 2 s) runs out. Delivery is the bus's (at most once: a message published while the bus is away is
 * lost), so the time bound stays as the backstop.
 */
export function accessChangeChannel(options: AccessChangeChannelOptions): AccessChangeChannel {
  const { bus, logger } = options;
  const channel = options.channel ?? 'svcbase:access';
  const instanceId = options.instanceId ?? randomBytes(8).toString('hex');
  const subscription = Promise.resolve(
    bus.subscribe(channel, (message) => {
      const parsed = parseChange(message);
      if (!parsed) return logger.warn('access: ignoring an unreadable message on the access channel', { channel });
      if (parsed.from !== instanceId) options.onRemote(parsed.change);
    }),
  ).catch((error: unknown) => {
    logger.error('access: could not subscribe to the access channel; other instances\' changes apply after the cache time bound', { channel, error: String(error) });
    return null;
  });
  return {
    announce(change) {
      Promise.resolve()
        .then(() => bus.publish(channel, JSON.stringify({ from: instanceId, ...change })))
        .catch((error: unknown) => logger.warn('access: could not announce a change; other instances apply it after the cache time bound', { kind: change.kind, error: String(error) }));
    },
    async close() {
      const unsubscribe = await subscription;
      await unsubscribe?.();
    },
  };
}
