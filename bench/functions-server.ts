/**
 * The functions group's HTTP server, in a child process so the load generator does not share its
 * event loop: the service of bench/functions-app.ts with `helloDeployed` deployed, on node:http with
 * `toNodeListener`, on an ephemeral loopback port sent to the parent over IPC. Stops on `stop`.
 * With `--worker`, deployed functions never run inline (every invocation on a worker thread); with
 * `--isolated-vm`, they run inline in a V8 isolate (the process must run with `--no-node-snapshot`).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toNodeListener } from '../src/node.js';
import { DEPLOYED_SOURCE, deploy, functionsBenchService } from './functions-app.js';

export interface FunctionsServerReady {
  readonly port: number;
}

// `--worker`: every deployed invocation on a worker thread (deployed.inline: false); `--isolated-vm`: inline in a V8 isolate.
const service = functionsBenchService({ inline: process.argv.includes('--worker') ? false : process.argv.includes('--isolated-vm') ? 'isolated-vm' : true });
const put = await deploy(service, 'helloDeployed', 'node', DEPLOYED_SOURCE);
if (put.status !== 200) throw new Error(`deploy answered ${put.status}`);
const server = createServer(toNodeListener(service));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
process.send?.({ port: (server.address() as AddressInfo).port } satisfies FunctionsServerReady);
process.on('message', (message) => {
  if (message !== 'stop') return;
  server.close();
  server.closeAllConnections();
  void service.close().then(() => process.exit(0));
});
