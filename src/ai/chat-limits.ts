import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { CounterStore } from '../counters/port.js';
import type { KvStore } from '../kv/port.js';
import type { AiSettings } from './ai-settings.js';

const DAY_MS = 86_400_000;

/**
 * The per-application limits of AI chat: streams at once (this instance), messages per minute and
 * tokens per UTC day (shared by every instance through the CounterStore and the KvStore).
 */
export class ChatLimits {
  private readonly running = new Map<string, number>();

  constructor(
    private readonly counters: CounterStore,
    private readonly kv: KvStore,
    private readonly clock: Clock,
  ) {}

  /** Admits one message, or throws 11193 / 11195 / 11194; call the returned release when its stream ends. */
  async admit(appId: string, settings: AiSettings): Promise<() => void> {
    // The slot is taken before any await, so racing messages of one application count each other.
    const running = this.running.get(appId) ?? 0;
    if (running >= settings.maxConcurrentStreams) throw svcError('aiBusy', settings.maxConcurrentStreams);
    this.running.set(appId, running + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.running.get(appId) ?? 1) - 1;
      if (left <= 0) this.running.delete(appId);
      else this.running.set(appId, left);
    };
    try {
      const now = this.clock.now();
      if (settings.tokensPerDay > 0) {
        const used = Number((await this.kv.get(this.tokenKey(appId, now), now)) ?? 0);
        if (used >= settings.tokensPerDay) throw svcError('aiQuotaExhausted', settings.tokensPerDay);
      }
      const rate = await this.counters.consume(`ai:msg:${appId}`, [{ limit: settings.messagesPerMinute, windowMs: 60_000 }], now);
      if (!rate.allowed) throw svcError('aiRateLimited', Math.ceil(rate.retryAfterMs / 1000));
      return release;
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Adds a finished stream's tokens to today's count. */
  async spend(appId: string, tokens: number): Promise<void> {
    if (tokens <= 0) return;
    const now = this.clock.now();
    const dayEnd = (Math.floor(now / DAY_MS) + 1) * DAY_MS;
    await this.kv.increment(this.tokenKey(appId, now), tokens, dayEnd + DAY_MS, now);
  }

  private tokenKey(appId: string, now: number): string {
    return `ai:tok:${appId}:${Math.floor(now / DAY_MS)}`;
  }
}
