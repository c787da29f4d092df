import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, RT_APP, type RealtimeServer, jsonClient, rtHeaders, startRealtimeServer, subscribe } from './harness.js';

/**
 * Issue 36 item 7: where subscriptions were matched on the main thread in one go, so thousands of
 * heavy ones (a long `$in` plus a regex) from one REST-key client stalled every request for a second
 * or more per write. Matching now runs in slices between which the event loop serves requests; the
 * budgets are raised here so that every subscription is accepted and only the slicing is measured.
 * Real time is measured on purpose: the bound is the process's responsiveness.
 */
const CONNECTIONS = 20;
const PER_CONNECTION = 100;
const VALUES = 200;
/** Columns the writes add (one per write until then): a table gaining columns used to recompile every where. */
const NEW_COLUMNS = 200;
const WINDOW_MS = 1500;
/** Concurrent GET loops. */
const PROBES = 4;

describe('realtime: heavy where subscriptions never stall unrelated requests (issue 36 item 7)', () => {
  let server: RealtimeServer;
  const clients: Client[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.ws.terminate();
    await server.close();
  });

  it(`${CONNECTIONS * PER_CONNECTION} distinct heavy wheres from one client, writes flowing: an unrelated GET's p99 stays under 100 ms`, async () => {
    server = await startRealtimeServer({
      applications: [{ ...RT_APP, settings: { features: { realtime: true, regex: true } } }],
      realtime: {
        maxMessagesPerSecond: 100_000,
        maxQueuedMessages: PER_CONNECTION + 1,
        maxInboundBytesPerAddress: 1 << 30,
        maxInboundBytesPerApp: 1 << 30,
        maxSubscriptionsPerConnection: PER_CONNECTION + 1,
        maxWhereCostPerConnection: 1_000_000,
        maxWhereCostPerApp: 10_000_000,
        maxWhereSubscriptionsPerApp: 100_000,
      },
    });
    const probe = (await server.request('POST', '/1/classes/Probe', { body: { x: 1 } })).body.objectId as string;
    const hot = (await server.request('POST', '/1/classes/Hot', { body: { tag: ['none'], name: 'hello' } })).body.objectId as string;

    // The hostile client: distinct wheres (no two alike, so none is shared), none of which matches.
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, c) => {
        const client = await jsonClient(server, rtHeaders());
        clients.push(client);
        for (let i = 0; i < PER_CONNECTION; i++) {
          const n = c * PER_CONNECTION + i;
          const values = Array.from({ length: VALUES }, (_, k) => `v${k}-${n}`);
          client.send({ op: 'subscribe', id: i, tableName: 'Hot', where: { tag: { $in: values }, name: { $regex: `^h.*q${n}$` } } });
        }
        for (let i = 0; i < PER_CONNECTION; i++) expect((await client.json()).op).toBe('subscribed');
      }),
    );
    // A witness that every write matches: events keep flowing, so matching did run meanwhile.
    const witness = clients[0]!;
    await subscribe(witness, { id: 'witness', tableName: 'Hot', where: { name: { $regex: '^h' } } });
    let witnessed = 0;
    witness.ws.on('message', (data) => {
      if (String(data).includes('"id":"witness"')) witnessed++;
    });

    // Several probes at once, so the p99 is not just the slowest GET; the event loop's own delay says
    // whether a slow window was this process blocking or the machine descheduling it.
    const measure = async () => {
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      const latencies: number[] = [];
      const until = performance.now() + WINDOW_MS;
      await Promise.all(
        Array.from({ length: PROBES }, async () => {
          while (performance.now() < until) {
            const started = performance.now();
            const res = await server.request('GET', `/1/classes/Probe/${probe}`);
            latencies.push(performance.now() - started);
            expect(res.status).toBe(200);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }),
      );
      loop.disable();
      latencies.sort((a, b) => a - b);
      const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))]!;
      return { p99, gets: latencies.length, loopMaxMs: loop.max / 1e6 };
    };
    // The same probes before any write: on a machine too loaded to serve them well under 100 ms even
    // then, the bound is 3x that idle p99 (before the fix each write stalled every GET ~0.3-1 s).
    const idle = await measure();
    const bound = Math.max(100, 3 * idle.p99);

    // Writes that make every where work: a long array for the `$in`, a long string for the regex, a new column.
    let writing = true;
    let writes = 0;
    const failedWrites: number[] = [];
    const writer = (async () => {
      while (writing) {
        const body: Record<string, unknown> = { tag: Array.from({ length: 1000 }, (_, k) => `x${k}`), name: `h${'e'.repeat(2000)}${writes}` };
        if (writes < NEW_COLUMNS) body[`c${writes}`] = writes;
        const res = await server.request('PUT', `/1/classes/Hot/${hot}`, { body });
        if (res.status !== 200) failedWrites.push(res.status);
        writes++;
      }
    })();

    // A second window only when the first missed: on a shared two-core machine one descheduling can
    // delay every probe at once. Before the fix every window missed (each write stalled ~0.3-1 s).
    let window = await measure();
    const first = window;
    if (window.p99 >= bound) window = await measure();
    writing = false;
    await writer;

    const said = `GET p99 ${window.p99.toFixed(1)} ms over ${window.gets} GETs (first window ${first.p99.toFixed(1)} ms, idle ${idle.p99.toFixed(1)} ms), event loop delay max ${window.loopMaxMs.toFixed(1)} ms, ${writes} writes, ${witnessed} events`;
    expect(failedWrites).toEqual([]);
    expect(window.p99, said).toBeLessThan(bound);
    // Not vacuous: the GETs, the writes and the matching all went on during the window.
    expect(window.gets, said).toBeGreaterThan(100);
    expect(writes, said).toBeGreaterThan(10);
    expect(witnessed, said).toBeGreaterThan(0);
  }, 30_000);
});
