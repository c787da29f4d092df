import type { Clock } from '../core/clock.js';
import { addressGroup } from './address-group.js';

/** A token bucket of bytes: `rate` per second, holding at most `burst`. */
interface Bucket {
  tokens: number;
  updatedAt: number;
  readonly rate: number;
  readonly burst: number;
  /** Connections drawing on it. */
  holders: number;
}

/** What one connection draws on: its application's bucket and its address's (when the address is known). */
export interface InboundAllowance {
  /** Takes `bytes` from every bucket, or from none; false when one of them is short. */
  take(bytes: number): boolean;
  /** The connection closed or moved to another allowance (safe to call twice). */
  release(): void;
}

export interface InboundRates {
  /** Bytes per second of one application on this instance, all its connections together. */
  readonly perApp: number;
  /** Bytes per second of one client address (IPv6: its /64) within one application. */
  readonly perAddress: number;
  /** A bucket holds this many seconds of its rate (so a client may subscribe to many things at once)... */
  readonly burstSeconds: number;
  /** ...and at least this many bytes (so the largest frame can always pass an idle bucket). */
  readonly minBurst: number;
}

/**
 * Inbound client bytes per second on this instance, per application and per client address within an
 * application (docs/realtime.md, "Inbound budgets"): token buckets on the injected clock, shared by
 * every connection of that application or address, checked before a frame is parsed, so a flood over
 * many connections is refused at the cost of a subtraction rather than a JSON parse.
 */
export class InboundBudget {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly clock: Clock,
    private readonly rates: InboundRates,
  ) {}

  /** The allowance of a connection of `applicationId` from `address` (no address: the application's bucket only). */
  open(applicationId: string, address: string | undefined): InboundAllowance {
    const held = [this.hold(`app\n${applicationId}`, this.rates.perApp)];
    if (address !== undefined) held.unshift(this.hold(`address\n${applicationId}\n${addressGroup(address)}`, this.rates.perAddress));
    let released = false;
    return {
      take: (bytes) => {
        const now = this.clock.now();
        for (const bucket of held) refill(bucket, now);
        if (held.some((bucket) => bucket.tokens < bytes)) return false;
        for (const bucket of held) bucket.tokens -= bytes;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        for (const bucket of held) bucket.holders--;
      },
    };
  }

  /**
   * Forgets the buckets no connection holds once they have refilled (the feature's sweep calls this),
   * so closing and reopening a connection does not hand a flooding client a fresh burst.
   */
  prune(): void {
    const now = this.clock.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.holders > 0) continue;
      refill(bucket, now);
      if (bucket.tokens >= bucket.burst) this.buckets.delete(key);
    }
  }

  /** Buckets currently kept. */
  size(): number {
    return this.buckets.size;
  }

  private hold(key: string, rate: number): Bucket {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      const burst = Math.max(rate * this.rates.burstSeconds, this.rates.minBurst);
      bucket = { tokens: burst, updatedAt: this.clock.now(), rate, burst, holders: 0 };
      this.buckets.set(key, bucket);
    }
    bucket.holders++;
    return bucket;
  }
}

function refill(bucket: Bucket, now: number): void {
  const elapsed = Math.max(0, now - bucket.updatedAt);
  bucket.tokens = Math.min(bucket.burst, bucket.tokens + (elapsed * bucket.rate) / 1000);
  bucket.updatedAt = now;
}
