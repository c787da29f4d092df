/**
 * The subscribers of the realtime group, in a process of their own (one process could not hold
 * 10,000 sockets on each side under a 20,000 descriptor limit). Commands come over IPC: `open` (n
 * sockets, optionally subscribed with svcbase's JSON protocol), `round` (answered once every socket
 * has received one more message, with the first one's text), `close`.
 */
import { WebSocket } from 'ws';

export type FleetCommand =
  | { kind: 'open'; url: string; n: number; subscribe: boolean; headers: Record<string, string> }
  | { kind: 'round' }
  | { kind: 'close' };
export type FleetReply = { kind: 'open' } | { kind: 'round'; first: string } | { kind: 'closed' } | { kind: 'error'; message: string };

const clients: WebSocket[] = [];
/** Messages received since the sockets were ready, by all of them; round k is over at k × n. */
let received = 0;
let rounds = 0;
let first = '';
let waiting: { target: number; resolve: () => void } | undefined;

async function open(url: string, n: number, subscribe: boolean, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < n; i += 200) {
    const batch = Array.from({ length: Math.min(200, n - i) }, async () => {
      const ws = new WebSocket(url, { headers, perMessageDeflate: false });
      const queue: string[] = [];
      const waiters: Array<(text: string) => void> = [];
      let counting = false;
      ws.on('message', (data) => {
        if (counting) {
          if (ws === clients[0]) first = String(data);
          // Counted whenever it arrives: a message may overtake the `round` command (another channel).
          if (++received === waiting?.target) waiting.resolve();
          return;
        }
        const waiter = waiters.shift();
        if (waiter) waiter(String(data));
        else queue.push(String(data));
      });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', resolve);
        ws.once('error', reject);
      });
      const next = () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise<string>((r) => waiters.push(r)));
      if (subscribe) {
        await next(); // connected
        ws.send('{"op":"subscribe","id":1,"action":"updateTable","tableName":"Bench"}');
        await next(); // subscribed
      }
      counting = true;
      clients.push(ws);
    });
    await Promise.all(batch);
  }
}

const reply = (message: FleetReply) => process.send?.(message);

process.on('message', (command: FleetCommand) => {
  const work = async (): Promise<FleetReply> => {
    switch (command.kind) {
      case 'open':
        await open(command.url, command.n, command.subscribe, command.headers);
        return { kind: 'open' };
      case 'round': {
        const target = ++rounds * clients.length;
        if (received < target) await new Promise<void>((resolve) => (waiting = { target, resolve }));
        return { kind: 'round', first };
      }
      case 'close':
        for (const ws of clients) ws.terminate();
        setImmediate(() => process.exit(0));
        return { kind: 'closed' };
    }
  };
  work().then(reply, (error: unknown) => reply({ kind: 'error', message: String(error) }));
});
