import WebSocket from 'ws';
import { APP_HEADERS } from './cluster.js';

/** A time span during which a subscriber was subscribed (from its `subscribed` to its socket's close). */
export interface Window {
  readonly from: number;
  to: number | null;
}

/**
 * A realtime client of the JSON protocol through the proxy, as an application would write it: it
 * subscribes to `updateTable` of one table, and when its socket closes (its instance died, or the bus
 * was interrupted) it connects again, through the proxy, and subscribes again, until stopped.
 */
export class Subscriber {
  readonly windows: Window[] = [];
  /** objectId -> when it arrived. */
  readonly received = new Map<string, number>();
  readonly closeCodes: number[] = [];
  refusals = 0;
  private socket: WebSocket | null = null;
  private stopped = false;

  constructor(
    private readonly port: number,
    private readonly table: string,
  ) {}

  start(): void {
    if (this.stopped) return;
    const socket = new WebSocket(`ws://127.0.0.1:${this.port}/1/realtime`, { headers: APP_HEADERS });
    this.socket = socket;
    let window: Window | null = null;
    socket.on('open', () => socket.send(JSON.stringify({ op: 'subscribe', id: 1, action: 'updateTable', tableName: this.table })));
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { op: string; objectId?: string };
      if (message.op === 'subscribed') this.windows.push((window = { from: performance.now(), to: null }));
      else if (message.op === 'event' && message.objectId && !this.received.has(message.objectId)) this.received.set(message.objectId, performance.now());
    });
    // A refused upgrade (11230 while the bus is down, or no instance answering): try again shortly.
    socket.on('unexpected-response', () => {
      this.refusals++;
      socket.terminate();
    });
    socket.on('error', () => {});
    socket.on('close', (code) => {
      if (window) window.to = performance.now();
      this.closeCodes.push(code);
      if (!this.stopped) setTimeout(() => this.start(), 100);
    });
  }

  /** Whether it is subscribed now. */
  get subscribed(): boolean {
    return this.windows.at(-1)?.to === null;
  }

  stop(): void {
    this.stopped = true;
    this.socket?.close();
  }
}
