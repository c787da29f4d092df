import { describe, expect, it } from 'vitest';
import { type AccessChange, accessChangeChannel } from '../../src/access/access-changes.js';
import type { Logger } from '../../src/core/logger.js';
import { memoryEventHub } from '../../src/events/memory-event-bus.js';
import type { EventBus } from '../../src/events/port.js';

function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (message: string) => void lines.push(message);
  return { lines, debug: log, info: log, warn: log, error: log };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('access changes between instances', () => {
  it('hands each announcement to the other instances only, and skips text it cannot read', async () => {
    const hub = memoryEventHub();
    const seen: Record<'a' | 'b', AccessChange[]> = { a: [], b: [] };
    const logger = recordingLogger();
    const a = accessChangeChannel({ bus: hub.bus(), logger, onRemote: (change) => seen.a.push(change) });
    const b = accessChangeChannel({ bus: hub.bus(), logger, onRemote: (change) => seen.b.push(change) });
    await flush();
    a.announce({ kind: 'roles', namespace: 'app1' });
    b.announce({ kind: 'classPermissions', namespace: 'app1', className: 'Post' });
    const raw = hub.bus();
    for (const junk of ['not json', 'null', '{"from":"x","kind":"roles"}', '{"from":"x","kind":"other","namespace":"n"}', '{"__proto__":{"kind":"roles"}}']) {
      await raw.publish('svcbase:access', junk);
    }
    await flush();
    expect(seen.a).toEqual([{ kind: 'classPermissions', namespace: 'app1', className: 'Post' }]);
    expect(seen.b).toEqual([{ kind: 'roles', namespace: 'app1' }]);
    expect(logger.lines.filter((line) => line.includes('unreadable'))).toHaveLength(10);
    await a.close();
    b.announce({ kind: 'roles', namespace: 'app2' });
    await flush();
    expect(seen.a).toHaveLength(1);
    await b.close();
  });

  it('carries schema changes too (issue 40), and refuses one without a class name', async () => {
    const hub = memoryEventHub();
    const seen: AccessChange[] = [];
    const logger = recordingLogger();
    const a = accessChangeChannel({ bus: hub.bus(), logger, onRemote: () => {} });
    const b = accessChangeChannel({ bus: hub.bus(), logger, onRemote: (change) => seen.push(change) });
    await flush();
    a.announce({ kind: 'schema', namespace: 'app1', className: 'Post' });
    await hub.bus().publish('svcbase:access', '{"from":"x","kind":"schema","namespace":"app1"}');
    await flush();
    expect(seen).toEqual([{ kind: 'schema', namespace: 'app1', className: 'Post' }]);
    expect(logger.lines.filter((line) => line.includes('unreadable'))).toHaveLength(2);
    await a.close();
    await b.close();
  });

  it('a bus that fails to publish or subscribe is logged, never thrown: the cache time bound still applies', async () => {
    const broken: EventBus = {
      publish: () => Promise.reject(new Error('bus down')),
      subscribe: () => Promise.reject(new Error('bus down')),
    };
    const logger = recordingLogger();
    const channel = accessChangeChannel({ bus: broken, logger, onRemote: () => {} });
    channel.announce({ kind: 'roles', namespace: 'n' });
    await flush();
    await channel.close();
    expect(logger.lines).toEqual([expect.stringContaining('could not subscribe'), expect.stringContaining('could not announce')]);
  });
});
