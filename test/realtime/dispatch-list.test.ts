import { describe, expect, it } from 'vitest';
import { createAccessControl } from '../../src/access/access-control.js';
import { resolveApplication } from '../../src/app/application.js';
import { FakeClock } from '../../src/core/clock.js';
import type { Logger } from '../../src/core/logger.js';
import type { StoredRecord } from '../../src/core/values.js';
import { memoryEventBus } from '../../src/events/memory-event-bus.js';
import { memoryStorage } from '../../src/memory.js';
import { type EventFormat, Listener } from '../../src/realtime/dispatch-list.js';
import type { EventFrame } from '../../src/realtime/event-data.js';
import { SubscriptionEngine } from '../../src/realtime/engine.js';
import { type RealtimeCaller, realtimeCaller } from '../../src/realtime/realtime-caller.js';
import type { Subscription } from '../../src/realtime/subscription.js';
import { RT_APP } from './harness.js';

const app = resolveApplication(RT_APP);
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };
const format: EventFormat = { key: (subscription) => subscription.id, frame: (subscription, match) => `${subscription.id}:${match.record.objectId}`, error: (_subscription, error) => `error:${error.code}` };

/** An engine whose dispatch pauses before every listener but the first of a turn (a slice of 0 ms). */
function setup() {
  const storage = memoryStorage();
  const access = createAccessControl({ storage, clock: new FakeClock() });
  const engine = new SubscriptionEngine({ bus: memoryEventBus(), storage, logger: quiet, tables: access.tables, matching: { maxWhereSubscriptionsPerApp: 10, maxWhereCostPerApp: 100, dispatchSliceMs: 0, maxPendingChangeBytes: 1 << 20 } });
  const caller = realtimeCaller(access, { app, isMaster: true, user: null, sessionToken: null, credential: 'rest' });
  const sent: string[] = [];
  const listener = (id: string, onSend: () => void = () => {}, as: RealtimeCaller = caller) => {
    const subscription: Subscription = { kind: 'action', id, action: 'updateTable', className: 'T' };
    return new Listener(subscription, as, { sendEvent: (frame: EventFrame) => (sent.push(frame.text), onSend(), true) }, format, { drop() {} });
  };
  const created = (objectId: string, acl?: object) => ({ op: 'create' as const, app: app.applicationId, className: 'T', objectId, after: { objectId, ...(acl ? { ACL: acl } : {}) } as unknown as StoredRecord });
  return { engine, access, caller, sent, listener, created };
}

const settle = async (turns = 20) => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('SubscriptionEngine: the dispatch list (issue 41)', () => {
  it('a listener removed while a dispatch walks the list (which pauses before each listener here) gets nothing more; one added then gets the next change', async () => {
    const { engine, caller, sent, listener, created } = setup();
    await engine.attach({ caller, subscriptions: () => [], sessionEnded() {} });
    const late = listener('late');
    const c = listener('c');
    const d = listener('d');
    // a's send removes c and adds `late`; b's send removes d: the dispatch reaches c and d only after pausing.
    const a = listener('a', () => {
      if (sent.length === 1) {
        engine.unlisten(c);
        engine.listen(late);
      }
    });
    const b = listener('b', () => engine.unlisten(d));
    for (const l of [a, b, c, d]) engine.listen(l);
    engine.publish(app, created('r1'));
    await settle();
    expect(sent).toEqual(['a:r1', 'b:r1']);
    engine.publish(app, created('r2'));
    await settle();
    expect(sent.slice(2)).toEqual(['a:r2', 'b:r2', 'late:r2']);
    await engine.close();
  });

  it('a removed listener stays removed when the list is compacted, and removing twice is harmless', async () => {
    const { engine, caller, sent, listener, created } = setup();
    await engine.attach({ caller, subscriptions: () => [], sessionEnded() {} });
    const all = ['a', 'b', 'c', 'd', 'e'].map((id) => listener(id));
    for (const l of all) engine.listen(l);
    for (const l of [all[1]!, all[3]!, all[3]!]) engine.unlisten(l);
    engine.publish(app, created('r1'));
    await settle();
    engine.unlisten(all[0]!);
    engine.publish(app, created('r2'));
    await settle();
    expect(sent).toEqual(['a:r1', 'c:r1', 'e:r1', 'c:r2', 'e:r2']);
    for (const l of all) engine.unlisten(l);
    engine.publish(app, created('r3'));
    await settle();
    expect(sent).toHaveLength(5);
    await engine.close();
  });

  it('a listener removed while the view of its identity is asked leaves no other identity view to the next listener (regression)', async () => {
    const { engine, access, caller, sent, listener, created } = setup();
    await engine.attach({ caller, subscriptions: () => [], sessionEnded() {} });
    const anonymous = realtimeCaller(access, { app, isMaster: false, user: null, sessionToken: null, credential: 'rest' });
    // The first anonymous listener goes away while the dispatch awaits the anonymous view; the next one is anonymous too.
    const leaving: Listener = listener('leaving', () => {}, { ...anonymous, view: async (className) => (engine.unlisten(leaving), anonymous.view(className)) });
    for (const l of [listener('master'), leaving, listener('anonymous', () => {}, anonymous)]) engine.listen(l);
    engine.publish(app, created('private', { u1: { read: true } }));
    engine.publish(app, created('public', { '*': { read: true } }));
    await settle(40);
    expect(sent).toEqual(['master:private', 'master:public', 'anonymous:public']);
    await engine.close();
  });
});
