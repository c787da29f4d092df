import type { RealtimeChange } from './change.js';

/** Changes kept waiting for their echo: at most this many, and this many characters of their messages. */
const MAX_WAITING = 256;
const MAX_WAITING_CHARS = 4 * 1024 * 1024;

/**
 * The changes this instance published, each kept under its bus message until the bus hands the
 * message back, so the engine dispatches its own writes from the change it encoded instead of
 * parsing the message again. Keyed by the message's text: a networked bus hands back an equal
 * string, not the same one, and equal text is the same change. A message that never comes back (a
 * bus that lost it) is forgotten, oldest first, past the bounds.
 */
export class OwnChanges {
  private readonly waiting = new Map<string, RealtimeChange>();
  private chars = 0;

  remember(message: string, change: RealtimeChange): void {
    if (message.length > MAX_WAITING_CHARS || this.waiting.has(message)) return;
    this.waiting.set(message, change);
    this.chars += message.length;
    while (this.waiting.size > MAX_WAITING || this.chars > MAX_WAITING_CHARS) {
      const oldest = this.waiting.keys().next().value as string;
      this.forget(oldest);
    }
  }

  /** The change published as `message`, once: undefined for another instance's message. */
  take(message: string): RealtimeChange | undefined {
    const change = this.waiting.get(message);
    if (change !== undefined) this.forget(message);
    return change;
  }

  forget(message: string): void {
    if (this.waiting.delete(message)) this.chars -= message.length;
  }

  clear(): void {
    this.waiting.clear();
    this.chars = 0;
  }

  get size(): number {
    return this.waiting.size;
  }
}
