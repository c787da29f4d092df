import { afterAll, describe, expect, it } from 'vitest';
import { postgresEventBus } from '../../src/postgres.js';
import { PartAssembler, frameMessage, splitMessage } from '../../src/postgres/notify-chunks.js';
import { runEventBusConformance } from '../../src/testing.js';
import { connectTestPostgres } from './postgres-env.js';

const db = await connectTestPostgres('pg_bus');
afterAll(async () => db?.drop());

describe('NOTIFY framing', () => {
  it('splits on UTF-8 byte counts, never inside a character, and joins back', () => {
    const text = 'a中😀é'.repeat(5000);
    const parts = splitMessage(text, 7900);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(7900);
    expect(parts.join('')).toBe(text);
    expect(parts.every((p) => !/[\uD800-\uDBFF]$/.test(p))).toBe(true);
  });

  it('reassembles in order and drops a message whose parts are out of order', () => {
    const assembler = new PartAssembler();
    const framed = frameMessage('m1', 'x'.repeat(20_000));
    expect(framed.slice(0, -1).map((p) => assembler.accept(p))).toEqual([null, null]);
    expect(assembler.accept(framed.at(-1)!)).toBe('x'.repeat(20_000));
    const other = frameMessage('m2', 'y'.repeat(20_000));
    expect(assembler.accept(other[1]!)).toBeNull();
    expect(assembler.accept(other[2]!)).toBeNull();
    expect(assembler.accept('garbage without a header')).toBeNull();
  });
});

// Skipped (loudly, see connectTestPostgres) only when PostgreSQL is unreachable outside CI; CI fails instead.
describe.skipIf(!db)('postgresEventBus on PostgreSQL', () => {
  const sql = db!.sql;
  const prefix = `${db!.schema}:`;
  runEventBusConformance('postgres LISTEN/NOTIFY', () => postgresEventBus({ sql, prefix }));

  it('delivery resumes after the listen connection is terminated (porsager re-LISTENs)', async () => {
    const bus = postgresEventBus({ sql, prefix });
    const got: string[] = [];
    const states: string[] = [];
    bus.onInterruption!((state) => states.push(state));
    await bus.subscribe('resume', (m) => got.push(m));
    await bus.publish('resume', 'before');
    while (got.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const killed = await sql`SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity
      WHERE pid <> pg_backend_pid() AND datname = current_database() AND query ILIKE 'listen %' AND query LIKE ${`%${prefix}resume%`}`;
    expect(killed.length).toBeGreaterThan(0);
    const deadline = Date.now() + 15_000;
    for (let i = 0; !got.some((m) => m.startsWith('probe')); i++) {
      if (Date.now() > deadline) throw new Error('delivery did not resume');
      await bus.publish('resume', `probe${i}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // The gap is reported once the LISTEN is back (issue 40): realtime closes its sockets on it.
    expect(states).toEqual(['down', 'up']);
    await bus.close?.();
  }, 30_000);

  it('long channel names are hashed to a valid identifier and stay distinct', async () => {
    const bus = postgresEventBus({ sql, prefix });
    const [one, two] = [`${'long'.repeat(30)}-1`, `${'long'.repeat(30)}-2`];
    const got: string[] = [];
    await bus.subscribe(one, (m) => got.push(`1:${m}`));
    await bus.subscribe(two, (m) => got.push(`2:${m}`));
    await bus.publish(one, 'a');
    await bus.publish(two, 'b');
    while (got.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(got).toEqual(['1:a', '2:b']);
    await bus.close?.();
  });

  it('channel names with quotes, spaces and unicode are delivered verbatim (identifiers are quoted, never interpolated)', async () => {
    const bus = postgresEventBus({ sql, prefix });
    const channel = `a"b'c; LISTEN x; -- 中`;
    const got: string[] = [];
    await bus.subscribe(channel, (m) => got.push(m));
    await bus.publish(channel, "it's \"quoted\"");
    while (got.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(got).toEqual(['it\'s "quoted"']);
    await bus.close?.();
  });

  it('a message holding U+0000 is refused (PostgreSQL text cannot carry it)', async () => {
    const bus = postgresEventBus({ sql, prefix });
    expect(() => bus.publish('c', 'a\u0000b')).toThrow(/U\+0000/);
    await bus.close?.();
  });
});
