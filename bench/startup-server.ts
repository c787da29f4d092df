/**
 * The startup group's child: the quick start's server (`svcbase serve`, src/cli/serve.ts, every default
 * feature, SQLite on a fresh file), or with `bare` a node:http server answering the same route with a
 * canned body (the limit: Node's own start-up). Reports its port over IPC once listening, and its
 * memory when asked.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

type Request = { readonly type: 'memory' };

async function main(): Promise<void> {
  const mode = process.argv[2];
  let port: number;
  if (mode === 'bare') {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end('{"timestamp":0,"datetime":"2024-01-01 00:00:00"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  } else {
    const { start } = await import('../src/cli/serve.js');
    const started = await start({ port: 0, dbFile: process.argv[3], quiet: true });
    port = Number(new URL(started.url).port);
  }
  process.on('message', (message: Request) => {
    if (message.type === 'memory') {
      globalThis.gc?.();
      process.send?.({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed });
    }
  });
  process.send?.({ port });
}

await main();
