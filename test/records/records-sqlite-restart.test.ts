import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import { startRecordsServer } from './records-server.js';

describe('records over a SQLite file: every acknowledged write survives a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-restart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reopens the file with every acknowledged create, update, increment and delete', async () => {
    const file = join(dir, 'app.db');
    const first = await startRecordsServer({ storage: openSqlite(file) });
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await first.request('POST', '/1/classes/Note', {
        body: { i, text: `note ${i}`, when: { __type: 'Date', iso: '2026-03-04 05:06:07' }, tags: ['a'], place: { __type: 'GeoPoint', latitude: i, longitude: -i } },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.objectId);
    }
    const counter = ids[0]!;
    const acks = await Promise.all(
      Array.from({ length: 100 }, () => first.request('PUT', `/1/classes/Note/${counter}`, { body: { hits: { __op: 'Increment' } } })),
    );
    expect(acks.every((r) => r.status === 200)).toBe(true);
    await first.request('PUT', `/1/classes/Note/${ids[1]}`, { body: { tags: { __op: 'AddUnique', objects: ['b'] }, 'meta.k': 'v' } });
    await first.request('DELETE', `/1/classes/Note/${ids[2]}`);
    const before = await Promise.all(ids.map((id) => first.request('GET', `/1/classes/Note/${id}`)));
    await first.close();

    const second = await startRecordsServer({ storage: openSqlite(file) });
    try {
      const after = await Promise.all(ids.map((id) => second.request('GET', `/1/classes/Note/${id}`)));
      expect(after.map((r) => r.body)).toEqual(before.map((r) => r.body));
      expect(after[0]!.body.hits).toBe(100);
      expect(after[1]!.body).toMatchObject({ tags: ['a', 'b'], meta: { k: 'v' } });
      expect(after[2]!.status).toBe(404);
      expect(after[3]!.body).toMatchObject({ i: 3, place: { __type: 'GeoPoint', latitude: 3, longitude: -3 }, when: { __type: 'Date', iso: '2026-03-04 05:06:07' } });
      const typed = await second.request('PUT', `/1/classes/Note/${ids[3]}`, { body: { i: 'three' } });
      expect(typed.body.code).toBe(111);
    } finally {
      await second.close();
    }
  });
});
