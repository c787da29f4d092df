import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { PERSISTENCE_LIMITS, PersistenceStore, persistencePath } from '../../src/functions/java/persistence-store.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';

const MB = 1024 * 1024;

describe('oPersistence store', () => {
  const store = () => new PersistenceStore(memoryKvStore(), new FakeClock(1_000), async () => undefined);

  it('refuses an item over 10 MB and a total over 10 MB, writing nothing', async () => {
    const s = store();
    await expect(s.write('app', 'big', Buffer.alloc(PERSISTENCE_LIMITS.maxItemBytes + 1), false)).rejects.toMatchObject({ code: 11005 });
    expect(await s.read('app', 'big')).toBeNull();
    expect(await s.write('app', 'a', Buffer.alloc(6 * MB), false)).toBe(6 * MB);
    await expect(s.write('app', 'b', Buffer.alloc(5 * MB), false)).rejects.toMatchObject({ code: 11005 });
    await expect(s.write('app', 'a', Buffer.alloc(5 * MB), true)).rejects.toMatchObject({ code: 11005 });
    expect(await s.write('app', 'a', Buffer.alloc(9 * MB), false)).toBe(9 * MB);
    expect(await s.struct('app')).toEqual({ a: 9 * MB });
    expect(await s.struct('other')).toEqual({});
  });

  it('answers a held lock after its tries with a coded busy error', async () => {
    const kv = memoryKvStore();
    const clock = new FakeClock(1_000);
    await kv.putIfAbsent('jpersist:app:lock', '1', clock.now() + 10_000, clock.now());
    const s = new PersistenceStore(kv, clock, async () => undefined);
    await expect(s.write('app', 'a', Buffer.from('x'), false)).rejects.toMatchObject({ code: 11005, message: expect.stringContaining('busy') });
    clock.advance(10_001); // the lock of a crashed writer expires
    expect(await s.write('app', 'a', Buffer.from('x'), false)).toBe(1);
  });

  it('accepts paths of 1 to 8 safe parts only', () => {
    expect(persistencePath(['a', 'b.c', 'd-e_f'])).toBe('a/b.c/d-e_f');
    for (const bad of [[], ['..'], ['.'], ['a/b'], ['a b'], Array(9).fill('a'), [''], [7]]) expect(persistencePath(bad)).toBeNull();
  });
});
