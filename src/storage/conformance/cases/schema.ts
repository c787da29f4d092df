import { expect } from 'vitest';
import { type Harness, rejectionCode } from '../harness.js';

/** Column types are fixed by the first write; conflicts are 111 and change nothing. */
export function schemaCases(h: Harness): void {
  h.test('schema: ensureColumns is idempotent and only adds', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, { a: { type: 'Number' } });
    await h.adapter().ensureColumns(ref, { a: { type: 'Number' } });
    const schema = await h.adapter().ensureColumns(ref, { b: { type: 'Pointer', targetClass: '_User' }, r: { type: 'Relation', targetClass: 'Post' } });
    expect(schema.columns).toEqual({
      a: { type: 'Number' },
      b: { type: 'Pointer', targetClass: '_User' },
      r: { type: 'Relation', targetClass: 'Post' },
    });
  });

  h.test('schema: a conflicting type is a 111 and adds nothing', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, { a: { type: 'Number' } });
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { fresh: { type: 'String' }, a: { type: 'String' } }))).toBe(111);
    expect((await h.adapter().getSchema(ref))?.columns).toEqual({ a: { type: 'Number' } });
  });

  h.test('schema: a Pointer column keeps its target class', async () => {
    const ref = h.ref();
    await h.adapter().ensureColumns(ref, { p: { type: 'Pointer', targetClass: '_User' } });
    expect(await rejectionCode(() => h.adapter().ensureColumns(ref, { p: { type: 'Pointer', targetClass: 'Post' } }))).toBe(111);
  });

  h.test('schema: of two racing first writes with different types exactly one wins', async () => {
    const ref = h.ref();
    const results = await Promise.allSettled([
      Promise.resolve().then(() => h.adapter().ensureColumns(ref, { a: { type: 'Number' } })),
      Promise.resolve().then(() => h.adapter().ensureColumns(ref, { a: { type: 'String' } })),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const type = (await h.adapter().getSchema(ref))?.columns.a?.type;
    expect(['Number', 'String']).toContain(type);
  });

  h.test('schema: tables of one namespace are independent', async () => {
    await h.adapter().ensureColumns(h.ref('A'), { x: { type: 'Number' } });
    await h.adapter().ensureColumns(h.ref('B'), { x: { type: 'String' } });
    expect((await h.adapter().getSchema(h.ref('A')))?.columns.x?.type).toBe('Number');
    expect((await h.adapter().getSchema(h.ref('B')))?.columns.x?.type).toBe('String');
  });
}
