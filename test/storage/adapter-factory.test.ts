import { describe, expect, it } from 'vitest';
import { mapTextKv, textKvBackend, textKvStorage } from '../../examples/record-backend/text-kv-backend.js';
import { runStorageConformance } from '../../src/storage/conformance/index.js';
import { createStorageAdapter } from '../../src/storage/kit/create-storage-adapter.js';
import type { RecordBackend } from '../../src/storage/kit/record-backend.js';
import type { StoredRecord } from '../../src/core/values.js';
import { startTestServer } from '../helpers/server.js';

// The whole storage kit against an adapter that is nothing but a RecordBackend over JSON text.
runStorageConformance({ name: 'createStorageAdapter (text-kv example)', create: () => textKvStorage() });

const ref = { namespace: 'factory', className: 'Item' };
const at = (ms: number) => ({ __type: 'Date' as const, iso: new Date(ms).toISOString() });
const item = (objectId: string, n: number): StoredRecord => ({ objectId, createdAt: at(1), updatedAt: at(1), n });

/** A backend whose next write fails once `failAfter` more writes have gone through (one failure, then fine again). */
function failingBackend(): { backend: RecordBackend; failAfter(n: number): void } {
  const inner = textKvBackend(mapTextKv());
  let left = Number.POSITIVE_INFINITY;
  const write = <A extends unknown[]>(fn: (...args: A) => Promise<void> | void) => async (...args: A) => {
    if (left-- === 0) throw new Error('disk full');
    await fn(...args);
  };
  return {
    backend: { ...inner, writeRecord: write(inner.writeRecord), saveSchema: write(inner.saveSchema) },
    failAfter: (n) => void (left = n),
  };
}

describe('createStorageAdapter', () => {
  it('a transaction whose backend write fails midway leaves nothing behind, a new table included', async () => {
    const { backend, failAfter } = failingBackend();
    const storage = createStorageAdapter({ name: 'failing', backend });
    await storage.ensureColumns(ref, { n: { type: 'Number' } });
    await storage.insert(ref, item('keep', 1));
    failAfter(3);
    const other = { namespace: 'factory', className: 'Other' };
    await expect(
      storage.transaction(async (tx) => {
        await tx.update(ref, 'keep', [{ kind: 'increment', column: 'n', path: [], amount: 10 }], at(2));
        await tx.ensureColumns(other, { s: { type: 'String' } });
        await tx.insert(ref, item('new', 2));
        await tx.insert(ref, item('fails', 3));
      }),
    ).rejects.toThrow('disk full');
    expect(await storage.get(ref, 'keep')).toMatchObject({ n: 1 });
    expect(await storage.get(ref, 'new')).toBeNull();
    expect(await storage.getSchema(other)).toBeNull();
    expect((await storage.listTables?.('factory'))?.sort()).toEqual(['Item']);
  });

  it('a dropped table comes back whole when its transaction fails', async () => {
    const storage = textKvStorage();
    await storage.ensureColumns(ref, { n: { type: 'Number' }, tags: { type: 'Relation', targetClass: 'Item' } });
    await storage.insert(ref, item('a', 1));
    await storage.update(ref, 'a', [{ kind: 'add_relation', column: 'tags', targetClass: 'Item', ids: ['b', 'c'] }], at(2));
    await expect(
      storage.transaction(async (tx) => {
        await tx.dropTable?.(ref);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await storage.get(ref, 'a')).toMatchObject({ n: 1 });
    const members = await storage.count(ref, { kind: 'related_to', owner: { __type: 'Pointer', className: 'Item', objectId: 'a' }, key: 'tags' });
    expect(members).toBe(0); // b and c are ids only: the links are back, the records never existed
    const schema = await storage.getSchema(ref);
    expect(schema?.columns.tags).toEqual({ type: 'Relation', targetClass: 'Item' });
  });

  it('calls made in parallel inside one transaction do not lose increments', async () => {
    const storage = textKvStorage();
    await storage.ensureColumns(ref, { n: { type: 'Number' } });
    await storage.insert(ref, item('c', 0));
    await storage.transaction(async (tx) => {
      await Promise.all(Array.from({ length: 50 }, () => tx.update(ref, 'c', [{ kind: 'increment', column: 'n', path: [], amount: 1 }], at(2))));
    });
    expect(await storage.get(ref, 'c')).toMatchObject({ n: 50 });
  });
});

describe('createStorageAdapter behind a real server', () => {
  it('serves sign-up, ACL-filtered queries, increments and a rolled-back batch over HTTP', async () => {
    const svc = await startTestServer({ storage: textKvStorage() });
    try {
      const signUp = await svc.request('POST', '/1/users', { body: { username: 'ann', password: 'pw-123456' } });
      expect(signUp.status).toBe(201);
      const { objectId: ann, sessionToken } = signUp.body as { objectId: string; sessionToken: string };
      const mine = await svc.request('POST', '/1/classes/Note', { body: { text: "it's mine", n: 1, ACL: { [ann]: { read: true, write: true } } } });
      const open = await svc.request('POST', '/1/classes/Note', { body: { text: 'for all', n: 2 } });
      expect([mine.status, open.status]).toEqual([201, 201]);

      const anonymous = await svc.request('GET', `/1/classes/Note?where=${encodeURIComponent('{"n":{"$gte":1}}')}&count=1`);
      expect(anonymous.body).toMatchObject({ count: 1, results: [{ text: 'for all' }] });
      const asAnn = await svc.request('GET', '/1/classes/Note?order=n&count=1', { headers: { 'X-Svc-Session-Token': sessionToken } });
      expect(asAnn.body).toMatchObject({ count: 2, results: [{ text: "it's mine" }, { text: 'for all' }] });

      const id = (open.body as { objectId: string }).objectId;
      const bumps = await Promise.all(
        Array.from({ length: 20 }, () => svc.request('PUT', `/1/classes/Note/${id}`, { body: { n: { __op: 'Increment', amount: 1 } } })),
      );
      expect(bumps.every((res) => res.status === 200)).toBe(true);
      const rolledBack = await svc.request('POST', '/1/batch', {
        body: {
          transaction: true,
          requests: [
            { method: 'PUT', path: `/1/classes/Note/${id}`, body: { n: { __op: 'Increment', amount: 100 } } },
            { method: 'PUT', path: `/1/classes/Note/${id}`, body: { n: 'not a number' } },
          ],
        },
      });
      expect(rolledBack.status).toBe(400);
      expect((await svc.request('GET', `/1/classes/Note/${id}`)).body).toMatchObject({ n: 22 });
    } finally {
      await svc.close();
    }
  });
});
