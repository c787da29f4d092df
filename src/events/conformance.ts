import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import { type OptOuts, contractCase } from '../storage/conformance/opt-out.js';
import type { Awaitable } from '../storage/port.js';
import type { EventBus } from './port.js';

/** Makes bus instances for one case; every bus made in one case shares one backend. */
interface Buses {
  make(): Promise<EventBus>;
  /** A channel name no other case or run uses. */
  channel(name: string): string;
}

type BusCase = (buses: Buses) => Promise<void>;

/** Collects a listener's messages and waits (real time, polled) until a condition holds. */
function inbox() {
  const messages: string[] = [];
  const listener = (message: string) => void messages.push(message);
  const until = async (done: () => boolean, what: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`event bus: timed out waiting for ${what} (have ${messages.length})`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  return { messages, listener, until, count: (n: number) => until(() => messages.length >= n, `${n} messages`) };
}

/** A string of `bytes` UTF-8 bytes mixing 1-, 2-, 3- and 4-byte characters. */
function mixedText(bytes: number): string {
  const parts = ['a', 'é', '中', '😀', '"', '\\', '\n', "'", ' '];
  let out = '';
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const part = parts[i % parts.length]!;
    out += part;
    size += Buffer.byteLength(part);
  }
  return out;
}

/** The EventBus contract: delivery after subscribe, order, isolation, unsubscribe, large messages, close. */
const BUS_CASES = {
  'a message published after subscribe resolves is delivered to another instance': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const box = inbox();
    const ch = channel('first');
    await b.subscribe(ch, box.listener);
    await a.publish(ch, 'hello');
    await box.count(1);
    expect(box.messages).toEqual(['hello']);
  },
  'messages of one publisher on one channel arrive in publish order': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const box = inbox();
    const ch = channel('order');
    await b.subscribe(ch, box.listener);
    const sent = Array.from({ length: 300 }, (_, i) => `m${i}`);
    // Not awaited one by one: publish order, not completion order, is what the contract keeps.
    await Promise.all(sent.map((m) => a.publish(ch, m)));
    await box.count(300);
    expect(box.messages).toEqual(sent);
  },
  'a bus receives its own publications': async ({ make, channel }) => {
    const a = await make();
    const box = inbox();
    const ch = channel('own');
    await a.subscribe(ch, box.listener);
    await a.publish(ch, 'mine');
    await box.count(1);
    expect(box.messages).toEqual(['mine']);
  },
  'unsubscribe stops delivery to that listener only': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const gone = inbox();
    const kept = inbox();
    const ch = channel('unsub');
    const unsubscribe = await b.subscribe(ch, gone.listener);
    await b.subscribe(ch, kept.listener);
    await a.publish(ch, 'one');
    await gone.count(1);
    await unsubscribe();
    await a.publish(ch, 'two');
    await a.publish(ch, 'marker');
    await kept.count(3);
    expect(kept.messages).toEqual(['one', 'two', 'marker']);
    expect(gone.messages).toEqual(['one']);
  },
  'the same function subscribed twice is delivered twice; each unsubscribe removes one': async ({ make, channel }) => {
    const a = await make();
    const box = inbox();
    const ch = channel('twice');
    const first = await a.subscribe(ch, box.listener);
    await a.subscribe(ch, box.listener);
    await a.publish(ch, 'x');
    await box.count(2);
    await first();
    const marker = inbox();
    await a.subscribe(ch, marker.listener);
    await a.publish(ch, 'y');
    await marker.count(1);
    await box.count(3);
    expect(box.messages).toEqual(['x', 'x', 'y']);
  },
  'channels are isolated, including names differing only in case': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const lower = inbox();
    const upper = inbox();
    const other = inbox();
    const base = channel('iso');
    await b.subscribe(`${base}-chan`, lower.listener);
    await b.subscribe(`${base}-CHAN`, upper.listener);
    await b.subscribe(`${base}-other`, other.listener);
    await a.publish(`${base}-chan`, 'to lower');
    await a.publish(`${base}-CHAN`, 'to upper');
    await a.publish(`${base}-other`, 'to other');
    await Promise.all([lower.count(1), upper.count(1), other.count(1)]);
    // Markers after: anything misrouted would have arrived before them.
    await a.publish(`${base}-chan`, 'end');
    await a.publish(`${base}-CHAN`, 'end');
    await Promise.all([lower.count(2), upper.count(2)]);
    expect(lower.messages).toEqual(['to lower', 'end']);
    expect(upper.messages).toEqual(['to upper', 'end']);
    expect(other.messages).toEqual(['to other']);
  },
  'a throwing listener does not stop delivery to the others or later messages': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const box = inbox();
    const ch = channel('throw');
    let thrown = 0;
    await b.subscribe(ch, () => {
      thrown++;
      throw new Error('listener failure (expected by the test)');
    });
    await b.subscribe(ch, box.listener);
    await a.publish(ch, '1');
    await a.publish(ch, '2');
    await box.count(2);
    expect(box.messages).toEqual(['1', '2']);
    expect(thrown).toBe(2);
  },
  'many subscribers on several instances each receive every message': async ({ make, channel }) => {
    const buses = [await make(), await make(), await make()];
    const ch = channel('many');
    const boxes = Array.from({ length: 30 }, () => inbox());
    await Promise.all(boxes.map((box, i) => buses[i % buses.length]!.subscribe(ch, box.listener)));
    const sent = Array.from({ length: 20 }, (_, i) => `n${i}`);
    for (const m of sent) await buses[0]!.publish(ch, m);
    await Promise.all(boxes.map((box) => box.count(20)));
    for (const box of boxes) expect(box.messages).toEqual(sent);
  },
  'large messages (64 KiB of mixed UTF-8) and empty ones arrive intact': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const box = inbox();
    const ch = channel('large');
    await b.subscribe(ch, box.listener);
    const sent = [mixedText(64 * 1024), '', mixedText(7999), mixedText(8000), mixedText(8001), '{"json":true}'];
    for (const m of sent) await a.publish(ch, m);
    await box.count(sent.length);
    expect(box.messages.map((m) => m.length)).toEqual(sent.map((m) => m.length));
    expect(box.messages).toEqual(sent);
  },
  'close stops delivery to the closed bus; the others keep working': async ({ make, channel }) => {
    const [a, b] = [await make(), await make()];
    const closed = inbox();
    const open = inbox();
    const ch = channel('close');
    await b.subscribe(ch, closed.listener);
    await a.subscribe(ch, open.listener);
    await a.publish(ch, 'before');
    await Promise.all([closed.count(1), open.count(1)]);
    await b.close?.();
    await a.publish(ch, 'after');
    await open.count(2);
    expect(open.messages).toEqual(['before', 'after']);
    expect(closed.messages).toEqual(['before']);
  },
} satisfies Record<string, BusCase>;

/** Names of the EventBus contract cases (the keys of `EventBusConformanceOptions.skip`). */
export type EventBusCaseName = keyof typeof BUS_CASES;

export interface EventBusConformanceOptions {
  /** Cases this bus opts out of, each with its own reason (shown in the report as skipped). */
  readonly skip?: OptOuts<EventBusCaseName>;
}

/**
 * Registers the EventBus contract suite (a vitest `describe` named `EventBus contract: <name>`).
 * `make` returns a new bus INSTANCE each call; all instances must share one backend (as the
 * instances of one deployment share a Redis or a database), since cases publish on one and
 * subscribe on another. Each case uses channel names of its own and closes the buses it made;
 * close the underlying clients in your own `afterAll`. Waits for delivery in real time (up to 10 s).
 *
 * @example const hub = memoryEventHub(); runEventBusConformance('memory', () => hub.bus());
 */
export function runEventBusConformance(name: string, make: () => Awaitable<EventBus>, options: EventBusConformanceOptions = {}): void {
  const run = randomBytes(4).toString('hex');
  let cases = 0;
  describe(`EventBus contract: ${name}`, () => {
    for (const [caseName, body] of Object.entries(BUS_CASES) as Array<[EventBusCaseName, BusCase]>) {
      contractCase(caseName, options.skip?.[caseName], async () => {
        const made: EventBus[] = [];
        const id = `${run}-${cases++}`;
        const buses: Buses = {
          make: async () => {
            const bus = await make();
            made.push(bus);
            return bus;
          },
          channel: (label) => `svc-test-${id}-${label}`,
        };
        try {
          await body(buses);
        } finally {
          for (const bus of made) await bus.close?.();
        }
      });
    }
  });
}
