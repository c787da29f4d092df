import { describe, expect, it } from 'vitest';
import { decodeChange, encodeChange } from '../../src/realtime/change.js';
import type { StoredRecord } from '../../src/core/values.js';
import { TableRules } from '../../src/access/table-rules.js';

const tables = new TableRules();
const encode = (event: Parameters<typeof encodeChange>[0]) => encodeChange(event, tables.ruleOf(event.className));

const record = (objectId: string, extra: object = {}): StoredRecord =>
  ({ objectId, createdAt: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, updatedAt: { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' }, ...extra }) as StoredRecord;

describe('realtime bus encoding', () => {
  it('round-trips a change with typed values; _User loses password before it leaves the instance', () => {
    const after = record('a1', { at: { __type: 'Date', iso: '2026-02-03T04:05:06.007Z' }, p: { __type: 'Pointer', className: 'X', objectId: 'x' } });
    const message = encode({ op: 'update', app: 'app', className: 'T', objectId: 'a1', before: record('a1'), after })!;
    expect(decodeChange('app', message)).toEqual({ op: 'update', app: 'app', className: 'T', objectId: 'a1', before: record('a1'), after });
    const user = encode({ op: 'create', app: 'app', className: '_User', objectId: 'u', after: record('u', { username: 'ann', password: 'hash' }) })!;
    expect(user).not.toContain('hash');
    expect(encode({ op: 'create', app: 'app', className: '_Session', objectId: 's', after: record('s') })).toBeNull();
  });

  it('drops malformed or foreign messages', () => {
    const good = JSON.parse(encode({ op: 'delete', app: 'app', className: 'T', objectId: 'a', before: record('a') })!);
    expect(decodeChange('app', JSON.stringify(good))).not.toBeNull();
    for (const bad of [
      'nope',
      'null',
      JSON.stringify({ ...good, app: 'other' }),
      JSON.stringify({ ...good, v: 1 }),
      JSON.stringify({ ...good, op: 'drop' }),
      JSON.stringify({ ...good, before: undefined }),
      JSON.stringify({ ...good, before: record('b') }),
      JSON.stringify({ ...good, objectId: 5 }),
    ]) {
      expect(decodeChange('app', bad), bad).toBeNull();
    }
  });
});
