import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { memoryStorage } from '../../src/memory.js';
import { openSqlite } from '../../src/storage/sqlite/index.js';
import type { StorageAdapter } from '../../src/storage/port.js';
import { type TestService, startTestService } from '../helpers/handle.js';
import { TEST_APP } from '../helpers/server.js';

const dir = mkdtempSync(join(tmpdir(), 'svcbase-dates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const adapters: Array<[string, () => StorageAdapter]> = [
  ['memory', () => memoryStorage()],
  ['sqlite', () => openSqlite(join(dir, `${Math.random().toString(36).slice(2)}.db`))],
];
const where = (w: unknown) => `/1/classes/Event?where=${encodeURIComponent(JSON.stringify(w))}`;

describe.each(adapters)('fix 11.4: Date values keep their milliseconds on the wire (%s)', (_name, storage) => {
  let server: TestService;
  afterEach(() => server.close());
  const start = async (timeZone = 'UTC') => {
    server = await startTestService({
      storage: storage(),
      clock: new FakeClock(Date.UTC(2026, 0, 2, 3, 4, 5, 678)),
      applications: [{ ...TEST_APP, settings: { timeZone } }],
    });
  };

  it('fix 11.4: a Date with milliseconds reads back with .SSS and writes and queries unchanged', async () => {
    await start();
    const created = await server.request('POST', '/1/classes/Event', { body: { d: { __type: 'Date', iso: '2011-08-21T18:02:52.123Z' }, n: 1 } });
    const id = created.body.objectId as string;
    const read = await server.request('GET', `/1/classes/Event/${id}`);
    expect(read.body.d).toEqual({ __type: 'Date', iso: '2011-08-21 18:02:52.123' });
    expect(read.body.createdAt).toBe('2026-01-02 03:04:05');
    expect(read.body.updatedAt).toBe('2026-01-02 03:04:05');
    // Queried with the value read back: equality, ranges and $in find the record.
    for (const w of [{ d: read.body.d }, { d: { $gte: read.body.d, $lte: read.body.d } }, { d: { $in: [read.body.d] } }]) {
      const found = await server.request('GET', where(w));
      expect(found.body.results.map((r: { objectId: string }) => r.objectId), JSON.stringify(w)).toEqual([id]);
    }
    // The seconds-only form is another instant and finds nothing.
    expect((await server.request('GET', where({ d: { __type: 'Date', iso: '2011-08-21 18:02:52' } }))).body.results).toEqual([]);
    // Written back unchanged: the stored instant is the same.
    await server.request('PUT', `/1/classes/Event/${id}`, { body: { d: read.body.d, copy: read.body.d } });
    const again = await server.request('GET', `/1/classes/Event/${id}`);
    expect(again.body.d).toEqual(read.body.d);
    expect(again.body.copy).toEqual(read.body.d);
  });

  it('fix 11.4: the .SSS output form is accepted wherever a Date is (createdAt bounds, array ops)', async () => {
    await start();
    const at = { __type: 'Date', iso: '2011-08-21 18:02:52.123' };
    const created = await server.request('POST', '/1/classes/Event', { body: { list: { __op: 'AddUnique', objects: [at] } } });
    expect(created.status).toBe(201);
    const id = created.body.objectId as string;
    await server.request('PUT', `/1/classes/Event/${id}`, { body: { list: { __op: 'AddUnique', objects: [{ __type: 'Date', iso: '2011-08-21T18:02:52.123Z' }] } } });
    expect((await server.request('GET', `/1/classes/Event/${id}`)).body.list).toEqual([at]);
    for (const [bound, hits] of [['2026-01-02 03:04:05.678', 1], ['2026-01-02 03:04:05.679', 0]] as const) {
      const byCreated = await server.request('GET', where({ createdAt: { $gte: bound } }));
      expect(byCreated.body.results, bound).toHaveLength(hits);
      const byDate = await server.request('GET', where({ updatedAt: { $gte: { __type: 'Date', iso: bound } } }));
      expect(byDate.body.results, bound).toHaveLength(hits);
    }
  });

  it('fix 11.4: a Date without milliseconds keeps the seconds form', async () => {
    await start();
    const created = await server.request('POST', '/1/classes/Event', { body: { d: { __type: 'Date', iso: '2011-08-21T18:02:52.000Z' } } });
    expect((await server.request('GET', `/1/classes/Event/${created.body.objectId}`)).body.d).toEqual({ __type: 'Date', iso: '2011-08-21 18:02:52' });
  });

  it('fix 11.4: nested Object values and arrays round-trip milliseconds', async () => {
    await start();
    const at = { __type: 'Date', iso: '2011-08-21 18:02:52.007' };
    const created = await server.request('POST', '/1/classes/Event', { body: { o: { at, deep: { list: [at] } }, list: [at] } });
    const read = await server.request('GET', `/1/classes/Event/${created.body.objectId}`);
    expect(read.body.o).toEqual({ at, deep: { list: [at] } });
    expect(read.body.list).toEqual([at]);
    const found = await server.request('GET', where({ 'o.at': read.body.o.at }));
    expect(found.body.results).toHaveLength(1);
    await server.request('PUT', `/1/classes/Event/${created.body.objectId}`, { body: { o: read.body.o } });
    expect((await server.request('GET', `/1/classes/Event/${created.body.objectId}`)).body.o).toEqual(read.body.o);
  });

  it('fix 11.4: include-expanded pointers show their Dates with milliseconds, their times without', async () => {
    await start();
    const author = await server.request('POST', '/1/classes/Author', { body: { born: { __type: 'Date', iso: '1990-05-01T00:00:00.450Z' } } });
    await server.request('POST', '/1/classes/Post', { body: { author: { __type: 'Pointer', className: 'Author', objectId: author.body.objectId } } });
    const list = await server.request('GET', '/1/classes/Post?include=author');
    expect(list.body.results[0].author).toMatchObject({
      __type: 'Object',
      className: 'Author',
      createdAt: '2026-01-02 03:04:05',
      born: { __type: 'Date', iso: '1990-05-01 00:00:00.450' },
    });
  });

  it('fix 11.4: milliseconds survive a non-UTC application time zone', async () => {
    await start('Asia/Shanghai');
    const created = await server.request('POST', '/1/classes/Event', { body: { d: { __type: 'Date', iso: '2011-08-21T18:02:52.123Z' } } });
    const read = await server.request('GET', `/1/classes/Event/${created.body.objectId}`);
    expect(read.body.d).toEqual({ __type: 'Date', iso: '2011-08-22 02:02:52.123' });
    expect((await server.request('GET', where({ d: read.body.d }))).body.results).toHaveLength(1);
  });

  it('fix 11.4: max/min over createdAt and updatedAt answer the column form, not a typed Date', async () => {
    await start();
    await server.request('POST', '/1/classes/Event', { body: { n: 1, d: { __type: 'Date', iso: '2011-08-21T18:02:52.123Z' } } });
    const res = await server.request('GET', '/1/classes/Event?max=createdAt,d&min=updatedAt');
    expect(res.body.results).toEqual([
      { _maxCreatedAt: '2026-01-02 03:04:05', _minUpdatedAt: '2026-01-02 03:04:05', _maxD: { __type: 'Date', iso: '2011-08-21 18:02:52.123' } },
    ]);
    const grouped = await server.request('GET', '/1/classes/Event?max=updatedAt&groupby=n');
    expect(grouped.body.results).toEqual([{ _maxUpdatedAt: '2026-01-02 03:04:05', n: 1 }]);
  });
});

describe.each(adapters)('Date values of years 0-99 (%s)', (_name, storage) => {
  it('fix 11.4: a Date in year 0050 stays in year 0050 (was read as 1950)', async () => {
    const server = await startTestService({ storage: storage() });
    try {
      for (const iso of ['0050-03-04 05:06:07.500', '0000-01-01 00:00:00', '0099-12-31T23:59:59.999Z']) {
        const created = await server.request('POST', '/1/classes/Old', { body: { d: { __type: 'Date', iso } } });
        expect(created.status, iso).toBe(201);
        const read = await server.request('GET', `/1/classes/Old/${created.body.objectId}`);
        expect(read.body.d.iso, iso).toBe(iso.replace('T', ' ').replace('Z', ''));
        expect((await server.request('GET', where({ d: read.body.d }).replace('Event', 'Old'))).body.results, iso).toHaveLength(1);
      }
      expect((await server.request('POST', '/1/classes/Old', { body: { d: { __type: 'Date', iso: '0051-02-29 00:00:00' } } })).body.code).toBe(107);
    } finally {
      await server.close();
    }
  });
});
