import { sha256Hex } from '../core/secrets.js';

/**
 * How realtime names a session on the bus: a digest of its id (itself the SHA-256 of the token), so
 * the bus never carries what `_Session` stores (docs/scaling.md: `_Session` stays off the bus), and
 * a connection can still tell that the session it signed in with has ended.
 */
export function sessionTag(sessionId: string): string {
  return sha256Hex(`svcbase realtime session\u0000${sessionId}`);
}

const PREFIX = '{"sessionEnded":"';
const TAG = /^[0-9a-f]{64}$/;

/**
 * The bus message, on an application's realtime channel, saying that the session of `tag` ended:
 * on that channel it reaches every instance with subscribers of the application, after the changes
 * the same instance published before it.
 */
export function sessionEndedMessage(tag: string): string {
  return `${PREFIX}${tag}"}`;
}

/** The tag of a {@link sessionEndedMessage}, or null for any other message (a change): one `startsWith` for those. */
export function endedSessionTag(message: string): string | null {
  if (!message.startsWith(PREFIX)) return null;
  const tag = message.slice(PREFIX.length, -2);
  return message.endsWith('"}') && TAG.test(tag) ? tag : null;
}
