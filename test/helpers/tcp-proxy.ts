import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A loopback TCP proxy for fault tests: each accepted connection goes to the next target in turn
 * (round-robin; a target that refuses is skipped for the next one, as a load balancer's health check
 * would), bytes copied both ways. `hold()` makes it a black hole (existing connections cut, new ones
 * accepted and never answered: a store that stopped answering); `forward()` ends that.
 */
export interface TcpProxy {
  readonly port: number;
  setTargets(ports: readonly number[]): void;
  hold(): void;
  forward(): void;
  close(): Promise<void>;
}

export async function tcpProxy(targets: readonly number[]): Promise<TcpProxy> {
  let ports = [...targets];
  let next = 0;
  let holding = false;
  const sockets = new Set<Socket>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const pipeTo = (client: Socket, attempt: number) => {
    if (ports.length === 0 || attempt >= ports.length) return void client.destroy();
    const port = ports[next++ % ports.length]!;
    const upstream = connect(port, '127.0.0.1');
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
    });
    upstream.on('error', () => {
      if (!connected) pipeTo(client, attempt + 1);
      else client.destroy();
    });
    upstream.once('close', () => connected && client.destroy());
    client.once('close', () => upstream.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    client.on('error', () => {});
    client.pause();
    // Paused until the upstream connects: `pipe` then resumes it, so no early byte is lost.
    if (!holding) pipeTo(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    setTargets(list) {
      ports = [...list];
    },
    hold() {
      holding = true;
      for (const socket of sockets) socket.destroy();
    },
    forward() {
      holding = false;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
