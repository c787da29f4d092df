/**
 * The soak group's settings (docs/performance.md, "Soak"), from the environment so a shorter or
 * harsher soak needs no code change. Read by the group and by the runner (for its time limit).
 */
export interface SoakSettings {
  /** Length of the hostile load, s (SVC_SOAK_SECONDS; default 180, 20 with --quick). */
  readonly seconds: number;
  /** Length of the idle measurement before it, s (SVC_SOAK_IDLE_SECONDS; default 20, 5 with --quick). */
  readonly idleSeconds: number;
  /** The bound on the server's peak RSS during the load, MiB (SVC_SOAK_RSS_MIB; default 1024). */
  readonly rssBoundMiB: number;
  /** Silent sockets held open (SVC_SOAK_IDLE_SOCKETS; default 2000). */
  readonly silentSockets: number;
  /** Slowloris sockets (SVC_SOAK_SLOWLORIS; default 200). */
  readonly slowlorisSockets: number;
  /** Sockets idle after one request (SVC_SOAK_KEEPALIVE; default 100). */
  readonly keepAliveSockets: number;
  /** Realtime connections the flood tries to hold (SVC_SOAK_WS; default 120, past the per-address share of 100). */
  readonly wsConnections: number;
  /** Heavy where subscribes per connection and second (SVC_SOAK_SUBSCRIBES; default 2, a tenth of what the per-connection message limit allows). */
  readonly subscribesPerSecond: number;
  /** Concurrent allocation-bomb callers (SVC_SOAK_BOMBS; default 2). */
  readonly bombLoops: number;
  /** Calls in one function burst (SVC_SOAK_BURST; default 100), one burst every 5 s. */
  readonly burstSize: number;
  /** The hostile loads to run (SVC_SOAK_LOADS, comma-separated; default all): bombs, burst, flood, sockets. */
  readonly loads: ReadonlySet<SoakLoad>;
  /** Ratio of the well-behaved client's p99 under load to its idle p99 that passes (SVC_SOAK_P99_RATIO; default 3). */
  readonly p99Ratio: number;
}

export type SoakLoad = 'bombs' | 'burst' | 'flood' | 'sockets';
const LOADS: readonly SoakLoad[] = ['bombs', 'burst', 'flood', 'sockets'];

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

export function soakSettings(quick: boolean): SoakSettings {
  return {
    seconds: positive('SVC_SOAK_SECONDS', quick ? 20 : 180),
    idleSeconds: positive('SVC_SOAK_IDLE_SECONDS', quick ? 5 : 20),
    rssBoundMiB: positive('SVC_SOAK_RSS_MIB', 1024),
    silentSockets: positive('SVC_SOAK_IDLE_SOCKETS', 2000),
    slowlorisSockets: positive('SVC_SOAK_SLOWLORIS', 200),
    keepAliveSockets: positive('SVC_SOAK_KEEPALIVE', 100),
    wsConnections: positive('SVC_SOAK_WS', 120),
    subscribesPerSecond: positive('SVC_SOAK_SUBSCRIBES', 2),
    bombLoops: positive('SVC_SOAK_BOMBS', 2),
    burstSize: positive('SVC_SOAK_BURST', 100),
    p99Ratio: positive('SVC_SOAK_P99_RATIO', 3),
    loads: new Set(process.env.SVC_SOAK_LOADS ? LOADS.filter((l) => process.env.SVC_SOAK_LOADS!.split(',').includes(l)) : LOADS),
  };
}

/** The most the whole group may take, ms: start-up, warm-up, the idle windows, the load, shutdown. */
export function soakLimitMs(quick: boolean): number {
  const s = soakSettings(quick);
  return (s.seconds + 2 * s.idleSeconds + 300) * 1000;
}
