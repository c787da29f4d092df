import { describe, expect, it } from 'vitest';
import type { StoredRecord } from '../../src/core/values.js';
import type { RealtimeChange } from '../../src/realtime/change.js';
import { OwnChanges } from '../../src/realtime/own-changes.js';

const change = (objectId: string): RealtimeChange => ({ op: 'create', app: 'app', className: 'T', objectId, after: { objectId } as unknown as StoredRecord });

describe('OwnChanges', () => {
  it('hands a remembered change back once, for an equal message text too', () => {
    const own = new OwnChanges();
    const a = change('a1');
    own.remember('{"m":"a1"}', a);
    expect(own.take(['{"m":', '"a1"}'].join(''))).toBe(a);
    expect(own.take('{"m":"a1"}')).toBeUndefined();
    expect(own.take('{"m":"other"}')).toBeUndefined();
    expect(own.size).toBe(0);
  });

  it('forgets the oldest past 256 changes or 4 MiB of messages, and never keeps a larger one', () => {
    const own = new OwnChanges();
    for (let i = 0; i < 300; i++) own.remember(`m${i}`, change(`o${i}`));
    expect(own.size).toBe(256);
    expect(own.take('m0')).toBeUndefined();
    expect(own.take('m299')?.objectId).toBe('o299');
    own.clear();
    const big = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 5; i++) own.remember(`${i}${big}`, change(`b${i}`));
    expect(own.size).toBe(3);
    expect(own.take(`0${big}`)).toBeUndefined();
    expect(own.take(`4${big}`)?.objectId).toBe('b4');
    own.remember('y'.repeat(4 * 1024 * 1024 + 1), change('huge'));
    expect(own.size).toBe(2);
  });
});
