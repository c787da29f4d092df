/**
 * Measuring aid (not part of `npm run bench`): realtime's own share of a write, warm and in process.
 * Creates records one per event-loop turn through `service.handle()` on memory storage with realtime
 * `off`, on with no subscriber (`nosub`), or on with one subscriber on a real socket of this process
 * (`sub`, the subscriber's parsing of each frame included), and prints the CPU per write. The
 * differences between the modes are what the realtime row's one subscriber costs beyond the create.
 *
 * @example npx tsx bench/build.ts bench/profile-realtime-cost.ts && for m in off nosub sub; do node bench/.build/profile-realtime-cost.mjs $m 100000; done
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocket } from 'ws';
import { memoryStorage } from '../src/memory.js';
import { toNodeListener } from '../src/node.js';
import { createService } from '../src/service.js';

const mode = process.argv[2] === 'off' || process.argv[2] === 'nosub' ? process.argv[2] : 'sub';
const writes = Number(process.argv[3] ?? 100_000);
const APP = { applicationId: 'bench', restApiKey: 'rest', masterKey: 'master', settings: { features: { realtime: mode !== 'off' } } };
const HEADERS = { 'x-svc-application-id': 'bench', 'x-svc-rest-api-key': 'rest', 'content-type': 'application/json' };

const service = createService({ storage: memoryStorage(), applications: [APP], captcha: false, users: false });
const server = createServer(toNodeListener(service));
server.on('upgrade', (req, socket, head) => void service.handleUpgrade(req, socket, head));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
let events = 0;
let client: WebSocket | null = null;
if (mode === 'sub') {
  client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/1/realtime`, { headers: HEADERS });
  await new Promise((resolve) => client!.once('open', resolve));
  client.send('{"op":"subscribe","id":1,"action":"updateTable","tableName":"Bench"}');
  await new Promise((resolve) => client!.once('message', resolve));
  client.on('message', () => events++);
}

const encoder = new TextEncoder();
/** `n` creates, each in its own turn of the event loop, as requests arrive. */
async function create(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await service.handle({ method: 'POST', path: '/1/classes/Bench', search: '', headers: HEADERS, body: encoder.encode(`{"score":${i},"name":"player ${i}"}`) });
    await new Promise((resolve) => setImmediate(resolve));
  }
}

await create(20_000); // warm-up, unmeasured
const cpu = process.cpuUsage();
const started = performance.now();
await create(writes);
const used = process.cpuUsage(cpu);
const wall = (performance.now() - started) * 1000;
process.stdout.write(
  `${mode}: ${((used.user + used.system) / writes).toFixed(2)} µs CPU per write (user ${(used.user / writes).toFixed(2)}, system ${(used.system / writes).toFixed(2)}), ` +
    `wall ${(wall / writes).toFixed(2)} µs; events received ${events}\n`,
);
client?.terminate();
await service.close();
server.closeAllConnections();
server.close();
