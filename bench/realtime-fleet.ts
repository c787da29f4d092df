/**
 * The subscribers of the realtime group, in a process of their own (one process could not hold
 * 10,000 sockets on each side under a 20,000 descriptor limit). Commands come over IPC: `open` (n
 * sockets, optionally subscribed with svcbase's JSON protocol) and `close`. Once open, the fleet
 * reports each round unasked (`round`, with the first socket's text) as soon as every socket has
 * received one more message: a round costs the bench one IPC message back and none out, so the
 * subscribers' process is woken by the frames alone, as a real subscriber would be.
 */
import { WebSocket } from 'ws';

export type FleetCommand =
  | { kind: 'open'; url: string; n: number; subscribe: boolean; headers: Record<string, string> }
  | { kind: 'close' };
export type FleetReply = { kind: 'open' } | { kind: 'round'; first: string } | { kind: 'closed' } | { kind: 'error'; message: string };

const clients: WebSocket[] = [];
/** The first socket's latest message. */
let first = '';
const reply = (message: FleetReply) => process.send?.(message);

/** Messages received since the sockets were ready, by all of them; round k is over at k × n. */
let received = 0;

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
          if (++received % clients.length === 0) reply({ kind: 'round', first });
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

process.on('message', (command: FleetCommand) => {
  const work = async (): Promise<FleetReply> => {
    switch (command.kind) {
      case 'open':
        await open(command.url, command.n, command.subscribe, command.headers);
        return { kind: 'open' };
      case 'close':
        for (const ws of clients) ws.terminate();
        setImmediate(() => process.exit(0));
        return { kind: 'closed' };
    }
  };
  work().then(reply, (error: unknown) => reply({ kind: 'error', message: String(error) }));
});
