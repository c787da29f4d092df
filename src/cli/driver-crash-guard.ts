/**
 * Whether `error` is the `postgres` driver's known crash (porsager/postgres#1154, #1208, unfixed in
 * 3.4.9): a write the driver scheduled with `setImmediate` runs after its connection closed (a backend
 * terminated, a network cut) and calls `write` on a null socket. It is thrown from a timer, where no
 * caller can catch it; the query it belonged to has already been rejected with CONNECTION_CLOSED and
 * the pool replaces the connection, so the process can go on.
 */
export function isKnownDriverCrash(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  if (error.message !== "Cannot read properties of null (reading 'write')") return false;
  const frames = error.stack?.split('\n').slice(1, 3) ?? [];
  return frames.some((frame) => frame.includes('nextWrite') && /[\\/]postgres[\\/].*connection\.js/.test(frame));
}

/**
 * Keeps the `svcbase serve` process alive through the driver's known crash (logged as a warning), and
 * ends it as Node would for every other uncaught exception: its stack on stderr, exit code 1.
 */
export function guardKnownDriverCrash(warn: (line: string) => void): void {
  process.on('uncaughtException', (error) => {
    if (isKnownDriverCrash(error)) return warn('[svcbase] WARN the postgres driver wrote to a closed connection (porsager/postgres#1154); the connection is replaced');
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
}
