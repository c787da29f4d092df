/**
 * svcbase in a plain node:http server on SQLite: the smallest complete host. `npm start` runs the
 * fuller quick start (`svcbase serve`, src/cli/serve.ts: dev keys, functions folder, PostgreSQL and
 * Redis from the environment); this file shows the same wiring in your own server.
 *
 * Run: npx tsx examples/node-http/server.ts   (PORT, default 3001; SVC_DB, default ./data/example.db)
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { createService, lineLogger } from 'svcbase';
import { applyServerLimits, closeGracefully, closeOnSignals, toNodeListener, trackRequests } from 'svcbase/node';
import { sqliteCounterStore, sqliteKvStore, sqliteStorage } from 'svcbase/sqlite';

export function start(port = Number(process.env.PORT ?? 3001), dbFile = process.env.SVC_DB ?? 'data/example.db') {
  mkdirSync(dirname(dbFile), { recursive: true });
  const database = new Database(dbFile);
  const service = createService({
    storage: sqliteStorage({ database }),
    kv: sqliteKvStore({ database }),
    counters: sqliteCounterStore({ database }),
    applications: [{ applicationId: 'example-app', restApiKey: 'example-rest-key', masterKey: 'example-master-key', secretKey: 'example-secret-key' }],
    brands: ['Svc', 'Bmob'],
    // A host-defined cloud function: POST /1/functions/hello {"name":"you"} answers {"result":"hello you"}.
    functions: { definitions: { hello: (request, response) => response.send(`hello ${String(request.body['name'] ?? 'world')}`) } },
    logger: lineLogger((line) => process.stdout.write(`${line}\n`), 'info'),
    accessLog: true,
  });
  const server = applyServerLimits(createServer(toNodeListener(service)));
  server.on('upgrade', (request, socket, head) => service.handleUpgrade(request, socket, head));
  const inFlight = trackRequests(server);
  return new Promise<{ url: string; close: () => Promise<void> }>((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as { port: number };
      resolve({ url: `http://127.0.0.1:${bound}`, close: () => closeGracefully(server, inFlight, () => service.close()) });
    });
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, close } = await start();
  process.stdout.write(`svcbase example listening on ${url} (applicationId example-app, REST key example-rest-key)\n`);
  closeOnSignals(close);
}
