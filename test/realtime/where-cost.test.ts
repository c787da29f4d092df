import { describe, expect, it } from 'vitest';
import { createAccessControl } from '../../src/access/access-control.js';
import { resolveApplication } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import type { Logger } from '../../src/core/logger.js';
import type { StoredRecord } from '../../src/core/values.js';
import type { Json } from '../../src/core/wire-values.js';
import { memoryEventBus } from '../../src/events/memory-event-bus.js';
import { memoryStorage } from '../../src/memory.js';
import { parseWhere } from '../../src/query/parse.js';
import { Listener } from '../../src/realtime/dispatch-list.js';
import type { EventFrame } from '../../src/realtime/event-data.js';
import { type MatchingLimits, type Subscriber, SubscriptionEngine } from '../../src/realtime/engine.js';
import { realtimeCaller } from '../../src/realtime/realtime-caller.js';
import { SharedWheres } from '../../src/realtime/shared-wheres.js';
import { SliceGate } from '../../src/realtime/slice-gate.js';
import type { Match, Subscription } from '../../src/realtime/subscription.js';
import { whereCost } from '../../src/realtime/where-cost.js';
import { RT_APP } from './harness.js';

const app = resolveApplication({ ...RT_APP, settings: { features: { realtime: true, regex: true } } });
const cost = (where: { [key: string]: Json }) => whereCost(parseWhere(where, { className: 'T', schema: () => null, settings: app.settings }));

describe('whereCost', () => {
  it('counts conditions, listed values, object values and regex patterns', () => {
    expect(cost({})).toBe(1);
    expect(cost({ a: 1 })).toBe(1);
    expect(cost({ a: 1, b: { $gt: 2, $lt: 9 } })).toBe(3);
    expect(cost({ a: { $in: [1, 2, 3] } })).toBe(4);
    expect(cost({ a: { $nin: ['x', 'y'] }, b: { $all: [1, 2] } })).toBe(6);
    expect(cost({ a: { x: 1, y: [1, 2] } })).toBe(5);
    expect(cost({ a: { $regex: '^abc' } })).toBe(14);
    expect(cost({ $or: [{ a: 1 }, { b: { $in: [1, 2] } }] })).toBe(4);
    expect(cost({ a: { $exists: true } })).toBe(1);
  });
});

describe('SharedWheres', () => {
  const request = (where: { [key: string]: Json }, hidden: ReadonlySet<string> = new Set()) => ({ app, className: 'T', where, schema: null, hidden });

  it('one compiled where per table, where (any key order) and hidden columns; freed with its last hold', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 10, maxWhereCostPerApp: 100 });
    const one = wheres.acquire(request({ a: 1, b: { $in: [1, 2] } }), () => {});
    const two = wheres.acquire(request({ b: { $in: [1, 2] }, a: 1 }), () => {});
    expect(two).toBe(one);
    const hiddenB = wheres.acquire(request({ a: 1 }, new Set(['b'])), () => {});
    expect(hiddenB).not.toBe(one);
    expect(wheres.usage(app.applicationId)).toEqual({ subscriptions: 3, wheres: 2, guarded: 1, cost: 5 });
    wheres.release(app.applicationId, one);
    expect(wheres.usage(app.applicationId)).toEqual({ subscriptions: 2, wheres: 2, guarded: 1, cost: 5 });
    wheres.release(app.applicationId, two);
    wheres.release(app.applicationId, hiddenB);
    expect(wheres.usage(app.applicationId)).toEqual({ subscriptions: 0, wheres: 0, guarded: 0, cost: 0 });
  });

  it('a where shared with a caller who may name a column is still refused (102) to one for whom it is hidden', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 10, maxWhereCostPerApp: 100 });
    wheres.acquire(request({ secret: 'x' }), () => {});
    expect(() => wheres.acquire(request({ secret: 'x' }, new Set(['secret'])), () => {})).toThrow(expect.objectContaining({ code: 102 }));
    expect(wheres.usage(app.applicationId).subscriptions).toBe(1);
  });

  it('a refusal by the connection (admit) or the application counts nothing', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 10, maxWhereCostPerApp: 5 });
    expect(() => wheres.acquire(request({ a: 1 }), () => { throw new Error('connection full'); })).toThrow('connection full');
    expect(() => wheres.acquire(request({ a: { $in: [1, 2, 3, 4, 5] } }), () => {})).toThrow(expect.objectContaining({ code: 11166 }));
    expect(wheres.usage(app.applicationId)).toEqual({ subscriptions: 0, wheres: 0, guarded: 0, cost: 0 });
  });

  it('a change evaluates a shared where once per record, however many subscriptions hold it', () => {
    const wheres = new SharedWheres({ maxWhereSubscriptionsPerApp: 10, maxWhereCostPerApp: 100 });
    const shared = wheres.acquire(request({ a: { $gt: 1 } }), () => {});
    let reads = 0;
    const record = { objectId: 'x', get a() {
      reads++;
      return 2;
    } } as unknown as StoredRecord;
    for (let i = 0; i < 5; i++) expect(shared.matches(record)).toBe(true);
    expect(reads).toBe(1);
  });
});

describe('SliceGate', () => {
  it('a turn of the event loop has one budget; paused dispatches resume in order, one per later turn, each with a fresh budget', async () => {
    const gate = new SliceGate(1);
    expect(gate.due()).toBe(false);
    const until = performance.now() + 2;
    while (performance.now() < until);
    expect(gate.due()).toBe(true);
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const resumed: Array<[string, number, boolean]> = [];
    const first = gate.pause().then(() => resumed.push(['first', turn, gate.due()]));
    const second = gate.pause().then(() => resumed.push(['second', turn, gate.due()]));
    await Promise.all([first, second]);
    counting = false;
    expect(resumed.map(([name, , due]) => [name, due])).toEqual([['first', false], ['second', false]]);
    expect(resumed[1]![1]).toBeGreaterThan(resumed[0]![1]);
  });
});

describe('SubscriptionEngine: the backlog of changes waiting to be matched', () => {
  it('past maxPendingChangeBytes further changes are dropped on this instance, logged once, until it catches up', async () => {
    const storage = memoryStorage();
    const access = createAccessControl({ storage, clock: new FakeClock() });
    const warnings: Array<{ message: string; context: unknown }> = [];
    const logger: Logger = { debug() {}, info() {}, error() {}, warn: (message, context) => void warnings.push({ message, context }) };
    const matching: MatchingLimits = { maxWhereSubscriptionsPerApp: 10, maxWhereCostPerApp: 100, dispatchSliceMs: 5, maxPendingChangeBytes: 3 * 1024 + 300 };
    const engine = new SubscriptionEngine({ bus: memoryEventBus(), storage, logger, tables: access.tables, matching });
    const seen: string[] = [];
    const subscription: Subscription = { kind: 'action', id: '1', action: 'updateTable', className: 'T' };
    const caller = realtimeCaller(access, { app, isMaster: true, user: null, sessionToken: null, credential: 'rest' });
    const subscriber: Subscriber = { caller, subscriptions: () => [subscription], sessionEnded() {} };
    await engine.attach(subscriber);
    const outlet = { sendEvent: (frame: EventFrame) => seen.push((JSON.parse(frame.text) as { objectId: string }).objectId) > 0 };
    const format = { key: () => 'id', frame: (_s: Subscription, match: Match) => JSON.stringify({ objectId: match.record.objectId }), error: () => 'error' };
    engine.listen(new Listener(subscription, caller, outlet, format, { drop() {} }));
    const created = (objectId: string) => ({ op: 'create' as const, app: app.applicationId, className: 'T', objectId, after: { objectId, n: 1 } as unknown as StoredRecord });
    // Published in one go: each waits about 1.1 KiB, so the fourth and later find the backlog full.
    for (const id of ['a', 'b', 'c', 'd', 'e']) engine.publish(app, created(id));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['a', 'b', 'c']);
    expect(warnings.map((w) => w.message)).toEqual(['realtime: matching fell behind, changes dropped until it catches up', 'realtime: matching caught up']);
    expect(warnings[1]!.context).toMatchObject({ applicationId: app.applicationId, dropped: 2 });
    // Caught up: the next change is delivered again.
    engine.publish(app, created('f'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual(['a', 'b', 'c', 'f']);
    await engine.close();
  });
});
