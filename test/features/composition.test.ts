import { afterEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { type FeatureDefinition, defineFeature, featureKey } from '../../src/features/contract.js';
import { orderFeatures } from '../../src/features/order.js';

import { memoryStorage } from '../../src/memory.js';
import { RECORDS, SESSIONS, type ServiceOptions, createService } from '../../src/service.js';
import { TEST_APP } from '../helpers/server.js';
import { type TestService, startTestService } from '../helpers/handle.js';

const def = (id: string, requires: string[] = [], after: string[] = []): FeatureDefinition => ({ id, requires, after, init: () => ({ routes: [] }) });

function codeOf(work: () => unknown): number | undefined {
  try {
    work();
  } catch (error) {
    if (isSvcError(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('feature ordering', () => {
  it('orders by requires; ties keep declaration order', () => {
    const ordered = orderFeatures([def('c', ['b']), def('a'), def('b', ['a']), def('d')]);
    expect(ordered.map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(orderFeatures([def('x'), def('y'), def('z')]).map((f) => f.id)).toEqual(['x', 'y', 'z']);
  });

  it('after: orders after optional features only when present', () => {
    expect(orderFeatures([def('users', [], ['sms']), def('sms')]).map((f) => f.id)).toEqual(['sms', 'users']);
    expect(orderFeatures([def('users', [], ['sms'])]).map((f) => f.id)).toEqual(['users']);
  });

  it('a missing requirement is coded 11112 and names both features', () => {
    expect(codeOf(() => orderFeatures([def('a', ['ghost'])]))).toBe(11112);
    expect(() => orderFeatures([def('a', ['ghost'])])).toThrow(/'a' requires 'ghost'/);
  });

  it('a cycle is coded 11113 and named', () => {
    expect(codeOf(() => orderFeatures([def('free'), def('a', ['b']), def('b', ['c']), def('c', ['a'])]))).toBe(11113);
    expect(() => orderFeatures([def('a', ['b']), def('b', ['a'])])).toThrow(/a -> b -> a/);
    expect(codeOf(() => orderFeatures([def('self', ['self'])]))).toBe(11113);
  });

  it('duplicate ids (11114) and invalid ids are refused', () => {
    expect(codeOf(() => orderFeatures([def('a'), def('a')]))).toBe(11114);
    expect(() => orderFeatures([def('__proto__')])).toThrow(/invalid feature id/);
    expect(() => featureKey('bad id')).toThrow(/invalid feature id/);
  });
});

interface CounterApi {
  next(): number;
}
const COUNTER = featureKey<CounterApi>('counter');

/** A host feature with an API, a settings slice and a route: added without touching any other feature's files. */
const counterFeature = defineFeature<CounterApi, { start: number; step: number }>({
  id: COUNTER.id,
  requires: [RECORDS.id],
  settings: {
    defaults: { start: 0, step: 1 },
    resolve(given, defaults) {
      if (given === undefined) return defaults;
      if (typeof given !== 'object' || given === null) throw new Error('expected an object');
      const merged = { ...defaults, ...(given as Record<string, unknown>) };
      if (!Number.isSafeInteger(merged.step) || (merged.step as number) < 1) throw new Error('step must be a positive integer');
      return merged as { start: number; step: number };
    },
  },
  init(ctx) {
    // Typed lookups: the records API through its key (compile-time typed), the sessions API optional.
    const records = ctx.use(RECORDS);
    expect(typeof records.registerClassPolicy).toBe('function');
    expect(ctx.find(SESSIONS)).toBeDefined(); // built-in features are declared (and so start) before host ones
    let calls = 0;
    return {
      api: { next: () => ++calls },
      routes: [
        {
          method: 'GET',
          path: '/1/counter',
          auth: 'app',
          body: 'none',
          handler: (route) => {
            const settings = ctx.settings(route.app);
            return { body: { value: settings.start + settings.step * ++calls } };
          },
        },
      ],
    };
  },
});

const options = (extra: Partial<ServiceOptions>): ServiceOptions => ({ storage: memoryStorage(), applications: [TEST_APP], captcha: false, ...extra });

describe('host features', () => {
  let svc: TestService | undefined;
  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it('a host feature with requires, typed API, settings slice and route; another feature reaches it by key', async () => {
    let seen: CounterApi | undefined;
    const consumer = defineFeature({
      id: 'consumer',
      requires: [COUNTER.id],
      init: (ctx) => {
        seen = ctx.use(COUNTER);
        return { routes: [] };
      },
    });
    // Declared before its requirement: ordering puts the counter first.
    svc = startTestService({
      captcha: false,
      features: [consumer, counterFeature],
      applications: [{ ...TEST_APP, featureSettings: { counter: { start: 100, step: 10 } } }],
    });
    expect(seen?.next()).toBe(1);
    expect((await svc.request('GET', '/1/counter')).body).toEqual({ value: 120 });
  });

  it('settings defaults apply to applications without a slice', async () => {
    svc = startTestService({ captcha: false, features: [counterFeature] });
    expect((await svc.request('GET', '/1/counter')).body).toEqual({ value: 1 });
  });

  it('an invalid settings slice fails createService with 11116 naming app and feature', () => {
    const bad = () => createService(options({ features: [counterFeature], applications: [{ ...TEST_APP, featureSettings: { counter: { step: 0 } } }] }));
    expect(codeOf(bad)).toBe(11116);
    expect(bad).toThrow(/test-app.*counter.*step must be a positive integer/);
    const undeclared = defineFeature({ id: 'plain', init: () => ({ routes: [] }) });
    expect(codeOf(() => createService(options({ features: [undeclared], applications: [{ ...TEST_APP, featureSettings: { plain: {} } }] })))).toBe(11116);
  });

  it('the default slice merge refuses unknown keys and __proto__', () => {
    const simple = defineFeature({ id: 'simple', settings: { defaults: { a: 1 } }, init: () => ({ routes: [] }) });
    const slice = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    expect(codeOf(() => createService(options({ features: [simple], applications: [{ ...TEST_APP, featureSettings: { simple: slice } }] })))).toBe(11116);
    expect(codeOf(() => createService(options({ features: [simple], applications: [{ ...TEST_APP, featureSettings: { simple: { b: 2 } } }] })))).toBe(11116);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('createService refuses a missing requirement (11112) and a cycle (11113)', () => {
    const needsGhost = defineFeature({ id: 'needs-ghost', requires: ['ghost'], init: () => ({ routes: [] }) });
    expect(codeOf(() => createService(options({ features: [needsGhost] })))).toBe(11112);
    const a = defineFeature({ id: 'a', requires: ['b'], init: () => ({ routes: [] }) });
    const b = defineFeature({ id: 'b', requires: ['a'], init: () => ({ routes: [] }) });
    expect(codeOf(() => createService(options({ features: [a, b] })))).toBe(11113);
    // A host feature may not reuse a built-in id.
    expect(codeOf(() => createService(options({ features: [defineFeature({ id: 'records', init: () => ({ routes: [] }) })] })))).toBe(11114);
  });

  it('ctx.use of an absent feature is 11115; ctx.find returns undefined', () => {
    const GHOST = featureKey<{ x: number }>('ghost');
    const user = defineFeature({ id: 'user', init: (ctx) => (ctx.use(GHOST), { routes: [] }) });
    expect(codeOf(() => createService(options({ features: [user] })))).toBe(11115);
    const finder = defineFeature({ id: 'finder', init: (ctx) => (expect(ctx.find(GHOST)).toBeUndefined(), { routes: [] }) });
    expect(() => createService(options({ features: [finder] }))).not.toThrow();
  });

  it('the older factory form still works and sees the registry; service.registry is a typed view of the keys', async () => {
    let sawRecords = false;
    svc = startTestService({
      captcha: false,
      features: [
        (_ctx, registry) => {
          sawRecords = registry.records !== undefined && registry.sessions !== undefined;
          return { name: 'legacy', routes: [{ method: 'GET', path: '/1/legacy', auth: 'app', body: 'none', handler: () => ({ body: { ok: true } }) }] };
        },
      ],
    });
    expect(sawRecords).toBe(true);
    expect((await svc.request('GET', '/1/legacy')).body).toEqual({ ok: true });
    expect(svc.service.registry.records?.policies).toBeDefined();
    expect(svc.service.registry.users?.sessions).toBe(svc.service.registry.sessions);
    expect(svc.service.registry.sms).toBeUndefined();
  });

  it('close runs every feature close, last started first', async () => {
    const closed: string[] = [];
    const closing = (id: string, requires: string[] = []) =>
      defineFeature({ id, requires, init: () => ({ routes: [], close: () => void closed.push(id) }) });
    const service = createService(options({ features: [closing('second', ['first']), closing('first')] }));
    await service.close();
    expect(closed).toEqual(['second', 'first']);
  });

  it('the feature context carries the hooks registry', async () => {
    const audit: string[] = [];
    const auditing = defineFeature({
      id: 'audit',
      init: (ctx) => {
        ctx.hooks.afterSave('Note', (hook) => void audit.push(`${hook.op}:${hook.className}`));
        return { routes: [] };
      },
    });
    svc = startTestService({ captcha: false, features: [auditing] });
    expect((await svc.request('POST', '/1/classes/Note', { body: { text: 'hi' } })).status).toBe(201);
    expect(audit).toEqual(['create:Note']);
  });
});
