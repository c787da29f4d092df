import { expect } from 'vitest';
import type { SchemaLimits } from '../../port.js';
import { type Harness, rejectionCode } from '../harness.js';

const NUMBER = { type: 'Number' } as const;

/** Names that differ only in letter case never share storage; per-application table and column limits. */
export function schemaRuleCases(h: Harness): void {
  h.test('schema: D4: class names differing only in case never share a table (11080)', async () => {
    const ledger = h.ref('Ledger');
    const record = await h.seed(ledger, { amount: NUMBER }, { amount: 5 });
    expect(await rejectionCode(() => h.adapter().ensureColumns(h.ref('ledger'), { amount: NUMBER }))).toBe(11080);
    expect(await rejectionCode(() => h.adapter().ensureColumns(h.ref('LEDGER'), {}))).toBe(11080);
    expect(await h.adapter().getSchema(h.ref('ledger'))).toBeNull();
    expect(await h.adapter().delete(h.ref('ledger'), record.objectId)).toBe(false);
    expect(await h.adapter().get(h.ref('ledger'), record.objectId)).toBeNull();
    expect(await h.adapter().get(ledger, record.objectId)).toEqual(record);
    // Another namespace is another scope.
    await h.adapter().ensureColumns(h.ref('ledger', `${ledger.namespace}x`), { amount: NUMBER });
  });

  h.test('schema: D4: field names differing only in case are refused (11081), built-in names too', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, { score: NUMBER });
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { fresh: NUMBER, Score: NUMBER }))).toBe(11081);
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { objectid: NUMBER }))).toBe(11081);
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { UpdatedAt: NUMBER }))).toBe(11081);
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { pair: NUMBER, PAIR: NUMBER }))).toBe(11081);
    expect(await rejectionCode(() => h.adapter().ensureColumns(h.ref('Fresh'), { x: NUMBER, X: NUMBER }))).toBe(11081);
    expect((await h.adapter().getSchema(ref))?.columns).toEqual({ score: NUMBER });
    expect(await h.adapter().getSchema(h.ref('Fresh'))).toBeNull();
  });

  h.test('schema: D4: an index name differing only in case from another is a configuration error', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, { a: NUMBER });
    await h.adapter().createIndex(ref, { name: 'byA', columns: ['a'], unique: false });
    await expect(async () => h.adapter().createIndex(ref, { name: 'BYA', columns: ['a'], unique: false })).rejects.toThrow(/differs only in case/);
    expect((await h.adapter().getSchema(ref))?.indexes.map((i) => i.name)).toEqual(['byA']);
  });

  h.test('schema: D8: a table beyond maxTables is refused (11082) and nothing is written', async () => {
    const limits: SchemaLimits = { maxTables: 2, maxColumns: 10 };
    await h.adapter().ensureColumns(h.ref('A'), { x: NUMBER }, limits);
    await h.adapter().ensureColumns(h.ref('B'), {}, limits);
    expect(await rejectionCode(() => h.adapter().ensureColumns(h.ref('C'), { x: NUMBER }, limits))).toBe(11082);
    expect(await h.adapter().getSchema(h.ref('C'))).toBeNull();
    // Existing tables still take columns; system tables do not count and are not refused.
    await h.adapter().ensureColumns(h.ref('A'), { y: NUMBER }, limits);
    await h.adapter().ensureColumns(h.ref('_System'), { x: NUMBER }, limits);
    expect(await rejectionCode(() => h.adapter().ensureColumns(h.ref('C'), {}, limits))).toBe(11082);
  });

  h.test('schema: D8: columns beyond maxColumns are refused (11083) and nothing is added', async () => {
    const limits: SchemaLimits = { maxTables: 10, maxColumns: 3 };
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, { a: NUMBER, b: NUMBER }, limits);
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { c: NUMBER, d: NUMBER }, limits))).toBe(11083);
    expect(Object.keys((await h.adapter().getSchema(ref))?.columns ?? {})).toEqual(['a', 'b']);
    await h.adapter().ensureColumns(ref, { a: NUMBER, c: NUMBER }, limits);
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { d: NUMBER }, limits))).toBe(11083);
    expect(await rejectionCode(() => h.adapter().ensureColumns(h.ref('Wide'), { a: NUMBER, b: NUMBER, c: NUMBER, d: NUMBER }, limits))).toBe(11083);
    expect(await h.adapter().getSchema(h.ref('Wide'))).toBeNull();
  });

  h.test('schema: D8: racing creations never pass the limits', async () => {
    const race = (count: number, work: (i: number) => unknown) =>
      Promise.allSettled(Array.from({ length: count }, (_, i) => Promise.resolve().then(() => work(i))));
    const tables = await race(12, (i) => h.adapter().ensureColumns(h.ref(`T${i}`), { x: NUMBER }, { maxTables: 3, maxColumns: 4 }));
    expect(tables.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    const columns = await race(12, (i) => h.adapter().ensureColumns(h.ref('T0', `${h.ref().namespace}c`), { [`c${i}`]: NUMBER }, { maxTables: 3, maxColumns: 4 }));
    expect(columns.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
  });
}
