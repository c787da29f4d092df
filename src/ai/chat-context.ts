import type { Clock } from '../core/clock.js';
import type { KvStore } from '../kv/port.js';
import type { ChatMessage } from './chat-provider.js';

export interface ContextBounds {
  readonly maxMessages: number;
  readonly maxBytes: number;
  readonly ttlSeconds: number;
}

/** The newest messages that fit both bounds (a turn longer than `maxBytes` on its own keeps nothing). */
export function boundContext(messages: readonly ChatMessage[], bounds: ContextBounds): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let bytes = 0;
  for (let i = messages.length - 1; i >= 0 && kept.length < bounds.maxMessages; i--) {
    const message = messages[i]!;
    bytes += Buffer.byteLength(message.content);
    if (bytes > bounds.maxBytes) break;
    kept.unshift(message);
  }
  // A context never starts with an assistant reply cut from its question.
  while (kept[0]?.role === 'assistant') kept.shift();
  return kept;
}

function parseStored(text: string | null): ChatMessage[] {
  if (!text) return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!Array.isArray(value)) return [];
    return value.filter((m): m is ChatMessage => typeof m === 'object' && m !== null && (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string');
  } catch {
    return [];
  }
}

/**
 * Conversation context per application and `session`, in the KvStore (so every instance continues a
 * conversation): the user and assistant messages of earlier turns, bounded and expiring. Two turns
 * of one session racing on two connections each append to what they read (the later write wins);
 * one connection's turns run one after another.
 */
export class ChatContextStore {
  constructor(
    private readonly kv: KvStore,
    private readonly clock: Clock,
  ) {}

  private key(appId: string, session: string): string {
    return `ai:ctx:${appId}:${session}`;
  }

  async load(appId: string, session: string): Promise<ChatMessage[]> {
    return parseStored(await this.kv.get(this.key(appId, session), this.clock.now()));
  }

  /** Appends a finished turn (its user messages and the reply) and stores the bounded result. */
  async append(appId: string, session: string, history: readonly ChatMessage[], turn: readonly ChatMessage[], bounds: ContextBounds): Promise<void> {
    const kept = boundContext([...history, ...turn], bounds);
    const now = this.clock.now();
    await this.kv.put(this.key(appId, session), JSON.stringify(kept), now + bounds.ttlSeconds * 1000);
  }
}
